import { MAX_MONTHLY_CREDIT_LIMIT } from '../common/monthly-credit-limit.js';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { isUuid } from '../organizations/org-access.service.js';

/** A bad command line: unknown command or flag, missing or malformed value. The CLI exits with status 2. */
export class UsageError extends Error {
  constructor(
    message: string,
    /** The usage line of the command concerned, printed after the message. */
    readonly usage?: string,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}

type Options = NonNullable<ParseArgsConfig['options']>;

export interface ParsedArgs {
  readonly values: Record<string, string | boolean | undefined>;
  readonly positionals: string[];
}

/**
 * `util.parseArgs` in strict mode, with its errors turned into UsageErrors and the positional count checked:
 * `positionals` names the required ones, `optionalPositionals` how many may follow.
 */
export function parseCommandArgs(
  args: readonly string[],
  usage: string,
  options: Options,
  positionals: readonly string[] = [],
  optionalPositionals = 0,
): ParsedArgs {
  let parsed;
  try {
    parsed = parseArgs({ args: [...args], options, allowPositionals: true, strict: true });
  } catch (error) {
    // Node's hint about `--` for positionals that start with a dash is noise here.
    const message = (error as Error).message.split('\n')[0]!.replace(/\. To specify a positional argument.*$/, '');
    throw new UsageError(message, usage);
  }
  const given = parsed.positionals;
  if (given.length < positionals.length) {
    throw new UsageError(`missing ${positionals.slice(given.length).join(', ')}`, usage);
  }
  if (given.length > positionals.length + optionalPositionals) {
    throw new UsageError(
      `unexpected argument ${JSON.stringify(given[positionals.length + optionalPositionals])}`,
      usage,
    );
  }
  return { values: parsed.values as ParsedArgs['values'], positionals: given };
}

export function requiredString(values: ParsedArgs['values'], flag: string, usage: string): string {
  const value = optionalString(values, flag);
  if (value === undefined) throw new UsageError(`--${flag} is required`, usage);
  return value;
}

export function optionalString(values: ParsedArgs['values'], flag: string): string | undefined {
  const value = values[flag];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`--${flag} needs a non-empty value`);
  return value.trim();
}

/** A whole number in [min, Number.MAX_SAFE_INTEGER], written in decimal digits only. */
export function optionalInteger(values: ParsedArgs['values'], flag: string, min: number): number | undefined {
  const raw = optionalString(values, flag);
  if (raw === undefined) return undefined;
  const value = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(value) || value < min) {
    throw new UsageError(`--${flag} must be an integer >= ${min}, got ${JSON.stringify(raw)}`);
  }
  return value;
}

export function oneOf<T extends string>(value: string | undefined, allowed: readonly T[], what: string): T | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) {
    throw new UsageError(`unknown ${what} ${JSON.stringify(value)} (expected one of: ${allowed.join(', ')})`);
  }
  return value as T;
}

export function uuidArgument(value: string, what: string): string {
  if (!isUuid(value)) throw new UsageError(`${what} must be a UUID, got ${JSON.stringify(value)}`);
  return value.toLowerCase();
}

/** `--credits <n|none>`: a monthly credit limit, or none. */
export function creditLimitArgument(values: ParsedArgs['values'], usage: string): number | null {
  const raw = requiredString(values, 'credits', usage);
  if (raw === 'none') return null;
  const value = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(value) || value > MAX_MONTHLY_CREDIT_LIMIT) {
    throw new UsageError(`--credits must be none or a whole number up to ${MAX_MONTHLY_CREDIT_LIMIT}`, usage);
  }
  return value;
}

export const JSON_FLAG = { json: { type: 'boolean' } } as const satisfies Options;

/** Names of organizations, projects and keys: 1 to 100 characters, as the HTTP API accepts them. */
export function nameArgument(values: ParsedArgs['values'], usage: string): string {
  const name = requiredString(values, 'name', usage);
  if (name.length > 100) throw new UsageError(`--name must be at most 100 characters (got ${name.length})`, usage);
  return name;
}
