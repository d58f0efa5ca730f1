import { NotFoundException } from '@nestjs/common';
import { type CaptionTrack, chooseCaptionTrack, parsePlayerResponse } from '../../extract/youtube/player-response.js';
import { type Cue, parseCaptionTrack, transcriptText } from '../../extract/youtube/caption-track.js';
import { youTubeVideoId } from '../../extract/youtube/youtube-url.js';
import { FetchError, type Fetcher } from '../../fetch/fetcher.port.js';
import { errorBody } from '../../http/error-body.js';
import { upstreamFailure } from '../../search/upstream/upstream-http.js';
import type { YoutubeTranscriptResult } from '../dto/youtube-results.dto.js';

const VIDEO_ID = /^[A-Za-z0-9_-]{11}$/;
const TIMEOUT_MS = 20_000;

/** The video id of a query that is a YouTube video URL or a bare 11-character id; null otherwise. */
export function videoIdOf(query: string): string | null {
  const trimmed = query.trim();
  if (VIDEO_ID.test(trimmed)) return trimmed;
  return youTubeVideoId(trimmed) ?? youTubeVideoId(trimmed.startsWith('http') ? trimmed : `https://${trimmed}`);
}

/** The track in the asked language (manual before automatic), else the extractor's usual choice. */
export function trackFor(tracks: readonly CaptionTrack[], language: string | null): CaptionTrack | null {
  if (language) {
    const wanted = language.toLowerCase().split(/[-_]/)[0]!;
    const matches = tracks.filter((t) => t.languageCode.toLowerCase().split(/[-_]/)[0] === wanted);
    const chosen = matches.find((t) => t.kind !== 'asr') ?? matches[0];
    if (chosen) return chosen;
  }
  return chooseCaptionTrack(tracks);
}

/**
 * youtube_transcript: the watch page's player data and caption track, through the service's fetcher (YOUTUBE_BASE_URL)
 * and the extractor's own parsers (src/extract/youtube/), with the cues kept as segments. YouTube out of reach or
 * answering pages we cannot read is a 502; a video that does not exist, is unavailable or has no captions is a 404.
 */
export async function youtubeTranscript(
  fetcher: Fetcher,
  baseUrl: string,
  videoId: string,
  language: string | null,
  signal?: AbortSignal,
): Promise<YoutubeTranscriptResult> {
  const deadline = Date.now() + TIMEOUT_MS;
  const remaining = () => Math.max(1, deadline - Date.now());
  const get = async (url: string, accept?: string) => {
    try {
      return await fetcher.fetch(url, {
        timeoutMs: remaining(),
        signal,
        ...(accept ? { accept } : {}),
        headers: { 'accept-language': 'en-US,en;q=0.9', cookie: 'CONSENT=YES+cb; SOCS=CAI' },
      });
    } catch (error) {
      if (error instanceof FetchError && error.code === 'http_error' && error.status === 404) {
        throw new NotFoundException(errorBody(`No YouTube video has the id ${videoId}`));
      }
      if (error instanceof FetchError) throw upstreamFailure('youtube', `could not be read (${error.message})`);
      throw error;
    }
  };
  const page = await get(`${baseUrl}/watch?v=${encodeURIComponent(videoId)}&hl=en`, 'text/html');
  const player = parsePlayerResponse(page.text());
  if (!player) throw upstreamFailure('youtube', 'answered a watch page without the video player data');
  const track = trackFor(player.captionTracks, language);
  if (!track) {
    const unavailable = player.playability.status && player.playability.status !== 'OK';
    throw new NotFoundException(
      errorBody(
        unavailable
          ? `This video is unavailable${player.playability.reason ? `: ${player.playability.reason}` : ''}`
          : 'This video has no transcript',
      ),
    );
  }
  const trackUrl = new URL(track.baseUrl, page.url);
  let cues: Cue[] = parseCaptionTrack((await get(trackUrl.href)).text());
  if (cues.length === 0 && trackUrl.searchParams.get('fmt') !== 'json3') {
    trackUrl.searchParams.set('fmt', 'json3');
    cues = parseCaptionTrack((await get(trackUrl.href)).text());
  }
  const transcript = transcriptText(cues);
  if (!transcript) throw new NotFoundException(errorBody('This video has no transcript'));
  return {
    video_id: videoId,
    title: player.title,
    channel: player.author,
    language: track.languageCode || null,
    url: `https://www.youtube.com/watch?v=${videoId}`,
    thumbnail: player.thumbnail,
    transcript,
    segments: cues.map((cue) => ({
      start: Math.round(cue.start * 1000) / 1000,
      duration: Math.round(cue.duration * 1000) / 1000,
      text: cue.text,
    })),
    provider: 'youtube',
  };
}
