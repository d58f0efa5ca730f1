import { BadRequestException } from '@nestjs/common';
import { errorBody } from '../../http/error-body.js';
import { serpYoutubeVideos } from '../upstream/serpapi/serpapi-youtube.js';
import type { VerticalRequest } from '../vertical-request.js';
import type { VerticalResults } from '../vertical-results.js';
import { videoIdOf, youtubeTranscript } from '../youtube/youtube-transcripts.js';
import type { VerticalFamily, VerticalSources } from './vertical-family.js';

/** youtube_transcript: the video named by the query, or (with SerpAPI) the first video a YouTube search finds. */
async function youtubeTranscriptOf(
  request: VerticalRequest,
  { upstream, fetcher, config }: VerticalSources,
): Promise<VerticalResults['youtube_transcript'][]> {
  let videoId = videoIdOf(request.query);
  if (!videoId && upstream.serpapi) {
    const links = serpYoutubeVideos(await upstream.serpapi.search('youtube', request.query));
    videoId = links.map(videoIdOf).find((id): id is string => id !== null) ?? null;
    if (!videoId) return [];
  }
  if (!videoId) {
    throw new BadRequestException(errorBody('query must be a YouTube video URL or an 11-character video id'));
  }
  return [await youtubeTranscript(fetcher, config.youtubeBaseUrl, videoId, request.language)];
}

export const youtubeFamily: VerticalFamily = { verticals: { youtube_transcript: youtubeTranscriptOf } };
