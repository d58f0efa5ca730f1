import type { RequestedModel, ResearchModel } from './research-pricing.js';
import { RESEARCH_LIMITS } from './research-pricing.js';

/** Clauses of a question: what "and", "vs", commas, semicolons and sentence ends separate. */
// eslint-disable-next-line regexp/no-super-linear-backtracking, regexp/no-super-linear-move -- splits a question cut to MAX_QUERY_CHARS (400) first: at worst quadratic in 400 characters
const CLAUSE_SEPARATORS = /\s*(?:[?;!]|\.(?:\s|$)|,\s+|\s+(?:and|versus|vs\.?|compared (?:to|with)|or)\s+)\s*/i;
const MIN_CLAUSE_WORDS = 2;
const MAX_QUERY_CHARS = 400;
/** An input broad enough for `pro` under `auto`: this many clauses, or this many words. */
const PRO_CLAUSES = 3;
const PRO_WORDS = 25;

/** `auto` decides by the input's breadth: several distinct parts, or a long input, runs as `pro`. */
export function resolveModel(requested: RequestedModel | undefined, input: string): ResearchModel {
  if (requested === 'mini' || requested === 'pro') return requested;
  const wordCount = input.split(/\s+/).filter(Boolean).length;
  return clausesOf(input).length >= PRO_CLAUSES || wordCount >= PRO_WORDS ? 'pro' : 'mini';
}

/**
 * Sub-questions without a model: the whole input first, then each of its clauses (with the input's leading words
 * when a clause alone would lose its subject), de-duplicated, up to the model's limit.
 */
export function planSubQuestions(input: string, model: ResearchModel): string[] {
  const whole = input.trim().replace(/\s+/g, ' ').slice(0, MAX_QUERY_CHARS);
  const questions = [whole, ...clausesOf(whole)];
  const seen = new Set<string>();
  const unique: string[] = [];
  for (const question of questions) {
    const key = question
      .toLowerCase()
      .replace(/[^\p{L}\p{N}]+/gu, ' ')
      .trim();
    if (seen.has(key)) continue;
    seen.add(key);
    unique.push(question);
  }
  return unique.slice(0, RESEARCH_LIMITS[model].subQuestions);
}

function clausesOf(input: string): string[] {
  return input
    .split(CLAUSE_SEPARATORS)
    .map((clause) => clause.trim())
    .filter((clause) => clause.split(/\s+/).length >= MIN_CLAUSE_WORDS);
}
