import { type JsonRecord, isRecord } from '../../../search/upstream/json-shape.js';

/** SerpAPI answers (checked by parseSerpAnswer) as vertical records, one mapper per engine, in a file per family. */

export const PROVIDER = 'serpapi' as const;

export function record(value: unknown): JsonRecord {
  return isRecord(value) ? value : {};
}
