import { stripTags } from '../../common/linear-text.js';

/** One caption cue: start and duration in seconds, text decoded. */
export interface Cue {
  readonly start: number;
  readonly duration: number;
  readonly text: string;
}

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', '#39': "'" };

/** XML/HTML character references (named basics and numeric). */
export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+\d*);/gi, (whole, ref: string) => {
    if (ref[0] === '#') {
      const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED[ref.toLowerCase()] ?? whole;
  });
}

/** Cue text: entities decoded twice (YouTube escapes the HTML escapes again inside its XML), tags and spaces cleaned. */
function cleanCueText(raw: string): string {
  return stripTags(decodeEntities(stripTags(decodeEntities(raw))))
    .replace(/\s+/g, ' ')
    .trim();
}

function attribute(attributes: string, name: string): string | null {
  const match = new RegExp(`\\b${name}\\s*=\\s*"([^"]*)"`).exec(attributes);
  return match ? match[1]! : null;
}

/**
 * A caption track in any of the formats YouTube serves: timedtext XML (`<transcript><text start dur>`), srv3
 * (`<timedtext><body><p t d>`, milliseconds), and `fmt=json3` (`events[].segs[].utf8`).
 */
export function parseCaptionTrack(body: string): Cue[] {
  const trimmed = body.trim();
  if (trimmed.startsWith('{')) return parseJson3(trimmed);
  const cues: Cue[] = [];
  for (const match of trimmed.matchAll(/<text\b([^>]*)>([\s\S]*?)<\/text>/g)) {
    const text = cleanCueText(match[2]!);
    if (text) {
      cues.push({
        start: Number(attribute(match[1]!, 'start') ?? 0),
        duration: Number(attribute(match[1]!, 'dur') ?? 0),
        text,
      });
    }
  }
  if (cues.length > 0) return cues;
  for (const match of trimmed.matchAll(/<p\b([^>]*)>([\s\S]*?)<\/p>/g)) {
    const text = cleanCueText(match[2]!);
    if (text) {
      cues.push({
        start: Number(attribute(match[1]!, 't') ?? 0) / 1000,
        duration: Number(attribute(match[1]!, 'd') ?? 0) / 1000,
        text,
      });
    }
  }
  return cues;
}

function parseJson3(body: string): Cue[] {
  let json: { events?: { tStartMs?: number; dDurationMs?: number; segs?: { utf8?: string }[] }[] };
  try {
    json = JSON.parse(body) as typeof json;
  } catch {
    return [];
  }
  const cues: Cue[] = [];
  for (const event of json.events ?? []) {
    const text = (event.segs ?? [])
      .map((seg) => seg.utf8 ?? '')
      .join('')
      .replace(/\s+/g, ' ')
      .trim();
    if (text) cues.push({ start: (event.tStartMs ?? 0) / 1000, duration: (event.dDurationMs ?? 0) / 1000, text });
  }
  return cues;
}

const PARAGRAPH_CHARS = 600;
const PAUSE_SECONDS = 2.5;

/**
 * Cues joined into paragraphs: a new paragraph after a pause of 2.5 s or more, or once a paragraph is long and a
 * sentence ends. Sound labels like `[Music]` are kept: they are what the captions say.
 */
export function transcriptText(cues: readonly Cue[]): string {
  const paragraphs: string[] = [];
  let current: string[] = [];
  let length = 0;
  let previousEnd = 0;
  for (const cue of cues) {
    const pause = current.length > 0 && cue.start - previousEnd >= PAUSE_SECONDS;
    const longEnough = length >= PARAGRAPH_CHARS && /[.!?…]["')\]]?$/.test(current[current.length - 1] ?? '');
    if (current.length > 0 && (pause || longEnough)) {
      paragraphs.push(current.join(' '));
      current = [];
      length = 0;
    }
    current.push(cue.text);
    length += cue.text.length + 1;
    previousEnd = Math.max(previousEnd, cue.start + cue.duration);
  }
  if (current.length > 0) paragraphs.push(current.join(' '));
  return paragraphs.join('\n\n');
}
