import { type ChatMessage, type LlmSettings, chatCompletion } from '../../llm/chat-completion.js';
import type { SearchHit } from '../providers/search-provider.port.js';
import type { AnswerLevel } from './extractive-answer.js';

/** Context per source, in characters: the snippet or passages, else the start of the page. */
const MAX_SOURCE_CHARS = { basic: 1500, advanced: 3000 } as const;
const MAX_TOKENS = { basic: 300, advanced: 800 } as const;

const SYSTEM_PROMPT =
  'You answer a search query using only the numbered search results provided. Use no outside knowledge and do not ' +
  'invent facts, numbers or names. If the results do not contain the answer, say that they do not. Write plain ' +
  'prose without markdown, headings or source numbers.';

/** The messages of a chat completion that answers `query` from `hits` only (exported for tests). */
export function answerMessages(query: string, hits: readonly SearchHit[], level: AnswerLevel): ChatMessage[] {
  const sources = hits
    .map((hit, i) => {
      const text = hit.content || hit.rawContent || '';
      return `[${i + 1}] ${hit.title}\nURL: ${hit.url}\n${text.slice(0, MAX_SOURCE_CHARS[level])}`;
    })
    .join('\n\n');
  const length =
    level === 'basic'
      ? 'Answer in one to three sentences.'
      : 'Answer in a detailed paragraph of up to eight sentences, covering what the results say.';
  return [
    { role: 'system', content: SYSTEM_PROMPT },
    { role: 'user', content: `Search results:\n\n${sources}\n\nQuery: ${query}\n\n${length}` },
  ];
}

/** Asks an OpenAI-compatible `POST {baseUrl}/chat/completions` for an answer grounded in the hits. */
export function llmAnswer(
  settings: LlmSettings,
  query: string,
  hits: readonly SearchHit[],
  level: AnswerLevel,
): Promise<string> {
  return chatCompletion(settings, answerMessages(query, hits, level), { maxTokens: MAX_TOKENS[level] });
}
