import type { FeedbackCursor } from './feedback.repository.js';

const BASE64URL = /^[A-Za-z0-9_-]{1,120}$/;
const CURSOR =
  /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z)\|([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

/** The opaque `next_cursor` of a feedback page: base64url of the last entry's time and id. */
export function encodeFeedbackCursor(cursor: FeedbackCursor): string {
  return Buffer.from(`${cursor.createdAt.toISOString()}|${cursor.feedbackId}`, 'utf8').toString('base64url');
}

/** The position inside a cursor; undefined for anything this service did not hand out. */
export function decodeFeedbackCursor(text: string): FeedbackCursor | undefined {
  if (!BASE64URL.test(text)) return undefined;
  const match = CURSOR.exec(Buffer.from(text, 'base64url').toString('utf8'));
  if (!match) return undefined;
  const cursor = { createdAt: new Date(match[1]!), feedbackId: match[2]! };
  if (Number.isNaN(cursor.createdAt.getTime())) return undefined;
  return encodeFeedbackCursor(cursor) === text ? cursor : undefined;
}
