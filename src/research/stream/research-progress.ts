import type { ResearchSource, ResearchStatus } from '../jobs/research-job.js';

/** What a running task reports as it goes: what a stream shows (see sse-events.ts). */
export type ResearchProgress =
  | { readonly kind: 'planning'; readonly model: 'mini' | 'pro' }
  | { readonly kind: 'planned'; readonly subQuestions: readonly string[] }
  | { readonly kind: 'search'; readonly index: number; readonly query: string }
  | { readonly kind: 'found'; readonly index: number; readonly query: string; readonly sources: ResearchSource[] }
  | { readonly kind: 'generating' }
  | { readonly kind: 'content'; readonly text: string | Record<string, unknown> }
  | { readonly kind: 'sources'; readonly sources: ResearchSource[] }
  | {
      readonly kind: 'finished';
      readonly status: Extract<ResearchStatus, 'completed' | 'failed'>;
      readonly error?: string;
    };

export type ProgressListener = (progress: ResearchProgress) => void;
