import { ExtractError } from '../content-extractor.port.js';
import type { Fetcher } from '../../fetch/fetcher.port.js';
import { parseCaptionTrack, transcriptText } from './caption-track.js';
import { chooseCaptionTrack, parsePlayerResponse } from './player-response.js';

export interface YouTubeTranscript {
  readonly watchUrl: string;
  readonly title: string | null;
  readonly transcript: string;
  readonly language: string | null;
  readonly thumbnail: string | null;
}

/**
 * A video's transcript: the watch page at `${baseUrl}/watch?v=<id>` gives `ytInitialPlayerResponse` and its caption
 * tracks; the preferred track (manual English, else automatic English, else any) is fetched and joined into
 * paragraphs. A video without captions is an ExtractError.
 */
export async function fetchYouTubeTranscript(
  fetcher: Fetcher,
  baseUrl: string,
  videoId: string,
  requestedUrl: string,
  options: { timeoutMs: number; signal?: AbortSignal },
): Promise<YouTubeTranscript> {
  const deadline = Date.now() + options.timeoutMs;
  const remaining = () => Math.max(1, deadline - Date.now());
  const watchUrl = `${baseUrl}/watch?v=${encodeURIComponent(videoId)}&hl=en`;
  const page = await fetcher.fetch(watchUrl, {
    timeoutMs: remaining(),
    signal: options.signal,
    accept: 'text/html',
    headers: { 'accept-language': 'en-US,en;q=0.9', cookie: 'CONSENT=YES+cb; SOCS=CAI' },
  });
  const player = parsePlayerResponse(page.text());
  if (!player) throw new ExtractError('Failed to extract content: could not read the YouTube video page', requestedUrl);
  const track = chooseCaptionTrack(player.captionTracks);
  if (!track) {
    const unavailable = player.playability.status && player.playability.status !== 'OK';
    throw new ExtractError(
      unavailable
        ? `This video is unavailable${player.playability.reason ? `: ${player.playability.reason}` : ''}`
        : 'This video has no transcript',
      requestedUrl,
    );
  }
  const trackUrl = new URL(track.baseUrl, page.url);
  let cues = parseCaptionTrack(
    (await fetcher.fetch(trackUrl.href, { timeoutMs: remaining(), signal: options.signal })).text(),
  );
  if (cues.length === 0 && trackUrl.searchParams.get('fmt') !== 'json3') {
    trackUrl.searchParams.set('fmt', 'json3');
    cues = parseCaptionTrack(
      (await fetcher.fetch(trackUrl.href, { timeoutMs: remaining(), signal: options.signal })).text(),
    );
  }
  const transcript = transcriptText(cues);
  if (!transcript) throw new ExtractError('This video has no transcript', requestedUrl);
  return {
    watchUrl: `https://www.youtube.com/watch?v=${videoId}`,
    title: player.title,
    transcript,
    language: track.languageCode || null,
    thumbnail: player.thumbnail,
  };
}
