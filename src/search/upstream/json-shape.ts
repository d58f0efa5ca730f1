/**
 * Reading upstream JSON defensively. Upstream answers are untrusted in shape (a proxy error page, a changed API, a
 * truncated body): the top-level shape an adapter relies on is checked and a mismatch is a failure (ShapeError), while
 * optional fields of a single result are read leniently (a wrong type reads as absent).
 */

export type JsonRecord = Record<string, unknown>;

export class ShapeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ShapeError';
  }
}

export function isRecord(value: unknown): value is JsonRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The value as an object, or a ShapeError naming `what`. */
export function expectRecord(value: unknown, what: string): JsonRecord {
  if (!isRecord(value)) throw new ShapeError(`${what} is not an object`);
  return value;
}

/**
 * An array of objects at `record[key]`: absent (or null) reads as empty when `optional`, anything else that is not an
 * array is a ShapeError. Entries that are not objects are skipped.
 */
export function recordsAt(record: JsonRecord, key: string, what: string, optional = true): JsonRecord[] {
  const value = record[key];
  if (value === undefined || value === null) {
    if (optional) return [];
    throw new ShapeError(`${what}.${key} is missing`);
  }
  if (!Array.isArray(value)) throw new ShapeError(`${what}.${key} is not an array`);
  return value.filter(isRecord);
}

/** A non-empty trimmed string, or null. Numbers are written out (ids and years sometimes come as numbers). */
export function str(value: unknown): string | null {
  if (typeof value === 'string') {
    const trimmed = value.trim();
    return trimmed === '' ? null : trimmed;
  }
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return null;
}

/** A finite number, from a number or a numeric string ("4.5", "1,234"); null otherwise. */
export function num(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value !== 'string') return null;
  const cleaned = value.trim().replace(/,/g, '');
  if (!/^[-+]?\d+(\.\d+)?$/.test(cleaned)) return null;
  const parsed = Number(cleaned);
  return Number.isFinite(parsed) ? parsed : null;
}

/** A non-negative integer count ("1,234", "1.2K", 1234); null otherwise. */
export function count(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? Math.round(value) : null;
  if (typeof value !== 'string') return null;
  const match = /^\(?\s*([\d.,]+)\s*(?:([kKmM])\s*)?\)?$/.exec(value.trim());
  if (!match) return null;
  const base = Number(match[1]!.replace(/,/g, ''));
  if (!Number.isFinite(base)) return null;
  const factor = match[2] ? (match[2].toLowerCase() === 'k' ? 1e3 : 1e6) : 1;
  return Math.round(base * factor);
}

export function bool(value: unknown): boolean | null {
  return typeof value === 'boolean' ? value : null;
}

/** Strings of an array (or a single string), trimmed, empty ones dropped. */
export function strings(value: unknown): string[] {
  const list = Array.isArray(value) ? value : value === undefined || value === null ? [] : [value];
  return list.map(str).filter((s): s is string => s !== null);
}
