/** The parts of YouTube's `ytInitialPlayerResponse` that a transcript needs. */
export interface CaptionTrack {
  readonly baseUrl: string;
  readonly languageCode: string;
  /** 'asr' for automatic captions. */
  readonly kind?: string;
  readonly name?: string;
}

export interface PlayerResponse {
  readonly videoId: string | null;
  readonly title: string | null;
  readonly author: string | null;
  readonly thumbnail: string | null;
  readonly playability: { status: string | null; reason: string | null };
  readonly captionTracks: CaptionTrack[];
}

const MARKERS = [/\bytInitialPlayerResponse\s*=\s*\{/, /\["ytInitialPlayerResponse"\]\s*=\s*\{/];

/**
 * Reads `ytInitialPlayerResponse` from a watch page: the JSON object literal assigned in one of its scripts
 * (`var ytInitialPlayerResponse = {...};`), found by matching braces outside strings. Null when absent.
 */
export function parsePlayerResponse(html: string): PlayerResponse | null {
  for (const marker of MARKERS) {
    const match = marker.exec(html);
    if (!match) continue;
    const start = match.index + match[0].length - 1;
    const json = balancedObject(html, start);
    if (!json) continue;
    try {
      return toPlayerResponse(JSON.parse(json) as Record<string, unknown>);
    } catch {
      continue;
    }
  }
  return null;
}

function balancedObject(text: string, start: number): string | null {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return text.slice(start, i + 1);
  }
  return null;
}

const record = (value: unknown): Record<string, unknown> =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
const string = (value: unknown): string | null => (typeof value === 'string' && value.trim() ? value : null);

function textOf(value: unknown): string | null {
  const v = record(value);
  if (string(v.simpleText)) return string(v.simpleText);
  if (Array.isArray(v.runs)) return v.runs.map((run) => string(record(run).text) ?? '').join('') || null;
  return string(value);
}

function toPlayerResponse(json: Record<string, unknown>): PlayerResponse {
  const details = record(json.videoDetails);
  const playability = record(json.playabilityStatus);
  const renderer = record(record(json.captions).playerCaptionsTracklistRenderer);
  const tracks = Array.isArray(renderer.captionTracks) ? renderer.captionTracks : [];
  const thumbnails = record(details.thumbnail).thumbnails;
  const lastThumbnail = Array.isArray(thumbnails) ? record(thumbnails[thumbnails.length - 1]).url : null;
  return {
    videoId: string(details.videoId),
    title: string(details.title),
    author: string(details.author),
    thumbnail: string(lastThumbnail),
    playability: { status: string(playability.status), reason: string(playability.reason) },
    captionTracks: tracks.flatMap((track): CaptionTrack[] => {
      const t = record(track);
      const baseUrl = string(t.baseUrl);
      if (!baseUrl) return [];
      return [
        {
          baseUrl,
          languageCode: string(t.languageCode) ?? '',
          kind: string(t.kind) ?? undefined,
          name: textOf(t.name) ?? undefined,
        },
      ];
    }),
  };
}

/** A manual English track, else an automatic English one, else a manual track in any language, else any track. */
export function chooseCaptionTrack(tracks: readonly CaptionTrack[]): CaptionTrack | null {
  const english = (t: CaptionTrack) => /^en\b/i.test(t.languageCode);
  const manual = (t: CaptionTrack) => t.kind !== 'asr';
  return (
    tracks.find((t) => english(t) && manual(t)) ?? tracks.find(english) ?? tracks.find(manual) ?? tracks[0] ?? null
  );
}
