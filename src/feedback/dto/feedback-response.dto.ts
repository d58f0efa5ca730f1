import { ApiSchema } from '@nestjs/swagger';

@ApiSchema({ name: 'FeedbackResponse' })
export class FeedbackResponseDto {
  /** Always true: the feedback is stored. */
  success!: boolean;

  /** Identifies the stored feedback. */
  feedback_id!: string;

  /**
   * The search the feedback was filed under (the `request_id` given, or the one its result ids name), or null when it
   * names none of this organization's searches still kept.
   */
  search_request_id!: string | null;

  /**
   * Result ids given (`used_ids`, `urls_scores[].id`) that name no result of this organization's searches still kept
   * (unknown, expired, or another organization's): stored as sent, judged nothing.
   */
  ignored_ids!: string[];

  /** Seconds the call took. */
  response_time!: number;

  /** Identifies this request. */
  request_id!: string;
}
