const HOSTS = new Set(['youtube.com', 'www.youtube.com', 'm.youtube.com', 'youtu.be', 'www.youtu.be']);
const VIDEO_ID = /^[A-Za-z0-9_-]{11}$/;

/**
 * The video id of a YouTube video URL: `/watch?v=<id>`, `youtu.be/<id>`, `/shorts/<id>`, `/embed/<id>` (and
 * `/live/<id>`, `/v/<id>`) on youtube.com, www., m. and youtu.be. Null for anything else (channels, playlists).
 */
export function youTubeVideoId(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return null;
  const host = parsed.hostname.toLowerCase();
  if (!HOSTS.has(host)) return null;
  const segments = parsed.pathname.split('/').filter(Boolean);
  let id: string | null | undefined;
  if (host.endsWith('youtu.be')) id = segments[0];
  else if (segments[0] === 'watch') id = parsed.searchParams.get('v');
  else if (['shorts', 'embed', 'live', 'v'].includes(segments[0] ?? '')) id = segments[1];
  return id && VIDEO_ID.test(id) ? id : null;
}
