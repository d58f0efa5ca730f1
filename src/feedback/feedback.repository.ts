import { Inject, Injectable } from '@nestjs/common';
import { Database } from '../database/database.js';
import { INDEX_DATABASE } from '../database/index-database.js';
import type { FeedbackRequestDto } from './dto/feedback-request.dto.js';
import type { Judgment } from './judgments.js';

export interface StoredFeedback {
  readonly feedbackId: string;
  readonly orgId: string;
  readonly projectId: string;
  readonly keyId: string;
  readonly requestId: string | null;
  readonly feedback: FeedbackRequestDto;
  readonly judgments: readonly Judgment[];
  readonly createdAt: Date;
}

interface Row {
  feedback_id: string;
  org_id: string;
  project_id: string;
  key_id: string;
  request_id: string | null;
  feedback: FeedbackRequestDto;
  judgments: Judgment[];
  created_at: Date;
}

const stored = (row: Row): StoredFeedback => ({
  feedbackId: row.feedback_id,
  orgId: row.org_id,
  projectId: row.project_id,
  keyId: row.key_id,
  requestId: row.request_id,
  feedback: row.feedback,
  judgments: row.judgments,
  createdAt: row.created_at,
});

/** Newest first: a page ends at (created_at, feedback_id) of its last entry. */
export interface FeedbackCursor {
  readonly createdAt: Date;
  readonly feedbackId: string;
}

/** The search_feedback table: every read is by organization. */
@Injectable()
export class FeedbackRepository {
  constructor(@Inject(INDEX_DATABASE) private readonly db: Database) {}

  async insert(feedback: Omit<StoredFeedback, 'createdAt'>): Promise<void> {
    await this.db.query(
      `INSERT INTO search_feedback (feedback_id, org_id, project_id, key_id, request_id, feedback, judgments)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [
        feedback.feedbackId,
        feedback.orgId,
        feedback.projectId,
        feedback.keyId,
        feedback.requestId,
        JSON.stringify(feedback.feedback),
        JSON.stringify(feedback.judgments),
      ],
    );
  }

  /** A page of the organization's feedback, newest first. */
  async page(orgId: string, limit: number, after?: FeedbackCursor): Promise<StoredFeedback[]> {
    const { rows } = await this.db.query<Row>(
      `SELECT * FROM search_feedback
       WHERE org_id = $1 AND ($2::timestamptz IS NULL OR (created_at, feedback_id) < ($2, $3::uuid))
       ORDER BY created_at DESC, feedback_id DESC LIMIT $4`,
      [orgId, after?.createdAt ?? null, after?.feedbackId ?? null, limit],
    );
    return rows.map(stored);
  }

  /** The organization's feedback that judged something, oldest first, from `since` on. */
  async judged(orgId: string, since: Date | null): Promise<StoredFeedback[]> {
    const { rows } = await this.db.query<Row>(
      `SELECT * FROM search_feedback
       WHERE org_id = $1 AND jsonb_array_length(judgments) > 0 AND ($2::timestamptz IS NULL OR created_at >= $2)
       ORDER BY created_at, feedback_id`,
      [orgId, since],
    );
    return rows.map(stored);
  }
}
