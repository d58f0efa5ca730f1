import type { ReadSource } from '../report/read-source.js';
import { ChatCompletionError, type LlmSettings, chatCompletion, parseJsonObject } from '../../llm/chat-completion.js';
import type { ResearchJob } from '../jobs/research-job.js';
import { lengthInstruction, reportMaxTokens } from '../report/output-length.js';
import { schemaMismatch } from './schema-check.js';

/** Characters of each source a model is given to write from. */
const SOURCE_CHARS = { mini: 3000, pro: 5000 } as const;

const GROUNDING =
  'Use only the numbered sources provided. Use no outside knowledge and do not invent facts, numbers or names.';

/** Sub-questions from the model; the caller falls back to its own plan when this fails. */
export async function llmPlan(settings: LlmSettings, input: string, max: number, signal?: AbortSignal) {
  const content = await chatCompletion(
    settings,
    [
      {
        role: 'system',
        content:
          `You plan web research. Break the user's research task into at most ${max} short, self-contained web ` +
          'search queries that together cover it. Answer with a JSON object {"sub_questions": ["...", ...]} only.',
      },
      { role: 'user', content: input },
    ],
    { maxTokens: 400, json: true, ...(signal ? { signal } : {}) },
  );
  const planned = parseJsonObject(content).sub_questions;
  if (!Array.isArray(planned)) throw new ChatCompletionError('the plan has no sub_questions list');
  const questions = planned
    .filter((q): q is string => typeof q === 'string' && q.trim() !== '')
    .map((q) => q.trim().slice(0, 400));
  if (questions.length === 0) throw new ChatCompletionError('the plan has no sub-questions');
  return questions.slice(0, max);
}

function sourcesBlock(sources: readonly ReadSource[], chars: number): string {
  return sources.map((s) => `[${s.n}] ${s.title}\nURL: ${s.url}\n${s.content.slice(0, chars)}`).join('\n\n');
}

/** A markdown report whose every claim cites a source as [n], as long as the job's output_length asks. */
export async function llmReport(
  settings: LlmSettings,
  job: Pick<ResearchJob, 'input' | 'planModel' | 'outputLength'>,
  subQuestions: readonly string[],
  sources: readonly ReadSource[],
  signal?: AbortSignal,
): Promise<string> {
  const { input, planModel: model, outputLength } = job;
  return chatCompletion(
    settings,
    [
      {
        role: 'system',
        content:
          `You write research reports in markdown. ${GROUNDING} Cite the source of every claim with its number in ` +
          'square brackets, e.g. [2], right after the claim. Use a title and one section per sub-question. Do not ' +
          'add a list of sources: it is added for you. ' +
          lengthInstruction(outputLength),
      },
      {
        role: 'user',
        content:
          `Sources:\n\n${sourcesBlock(sources, SOURCE_CHARS[model])}\n\nResearch task: ${input}\n\n` +
          `Sub-questions:\n${subQuestions.map((q) => `- ${q}`).join('\n')}`,
      },
    ],
    { maxTokens: reportMaxTokens(outputLength, model), ...(signal ? { signal } : {}) },
  );
}

/** An object matching `schema`, filled from the sources; a mismatch fails (the task then fails, unbilled). */
export async function llmStructured(
  settings: LlmSettings,
  input: string,
  sources: readonly ReadSource[],
  schema: Record<string, unknown>,
  model: 'mini' | 'pro',
  signal?: AbortSignal,
): Promise<Record<string, unknown>> {
  const content = await chatCompletion(
    settings,
    [
      {
        role: 'system',
        content:
          `You extract research findings into JSON. ${GROUNDING} Answer with one JSON object that matches this ` +
          `JSON Schema, and nothing else:\n${JSON.stringify(schema)}`,
      },
      { role: 'user', content: `Sources:\n\n${sourcesBlock(sources, SOURCE_CHARS[model])}\n\nResearch task: ${input}` },
    ],
    { maxTokens: model === 'pro' ? 3000 : 1500, json: true, ...(signal ? { signal } : {}) },
  );
  const value = parseJsonObject(content);
  const mismatch = schemaMismatch(value, schema);
  if (mismatch) throw new ChatCompletionError(`the model's answer does not match output_schema: ${mismatch}`);
  return value;
}
