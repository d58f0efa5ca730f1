import { type JsonRecord, recordsAt, str } from '../../../search/upstream/json-shape.js';

/** engine=youtube: the watch links of `video_results`, best first. */
export function serpYoutubeVideos(root: JsonRecord): string[] {
  return recordsAt(root, 'video_results', 'the answer')
    .map((entry) => str(entry.link))
    .filter((link): link is string => link !== null);
}
