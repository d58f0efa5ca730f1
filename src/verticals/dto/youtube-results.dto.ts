import { ApiSchema } from '@nestjs/swagger';
import { VerticalRecord } from './vertical-record.dto.js';

@ApiSchema({ description: 'A caption of the video, timed.' })
export class TranscriptSegment {
  /** Seconds from the start of the video. */
  start!: number;

  /** Seconds. */
  duration!: number;

  /** Text. */
  text!: string;
}

@ApiSchema({ description: 'youtube_transcript: the captions of a video.' })
export class YoutubeTranscriptResult extends VerticalRecord {
  /** Video id. */
  video_id!: string;

  /** Title. */
  title!: string | null;

  /** Channel. */
  channel!: string | null;

  /** Caption language. */
  language!: string | null;

  /** Video URL. */
  url!: string;

  /** Thumbnail URL. */
  thumbnail!: string | null;

  /** The captions joined into paragraphs. */
  transcript!: string;

  /** Timed captions. */
  segments!: TranscriptSegment[];
}
