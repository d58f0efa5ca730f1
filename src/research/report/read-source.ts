/** A source a task read: its place in the report's numbering (1-based), and its text. */
export interface ReadSource {
  readonly n: number;
  readonly title: string;
  readonly url: string;
  readonly favicon: string | null;
  /** The page as markdown (the index's copy, or a fresh extraction). */
  readonly content: string;
  /** The sub-questions (by index) whose searches found it. */
  readonly foundFor: readonly number[];
}
