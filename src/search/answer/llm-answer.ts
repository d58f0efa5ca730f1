import type { SearchHit } from '../providers/search-provider.port.js';
import type { AnswerLevel } from './extractive-answer.js';

export interface LlmSettings {
  readonly baseUrl: string;
  readonly model: string;
  readonly apiKey: string | null;
  readonly timeoutMs: number;
}

/** Context per source, in characters: the snippet or passages, else the start of the page. */
const MAX_SOURCE_CHARS = { basic: 1500, advanced: 3000 } as const;
const MAX_TOKENS = { basic: 300, advanced: 800 } as const;

const SYSTEM_PROMPT =
  'You answer a search query using only the numbered search results provided. Use no outside knowledge and do not ' +
  'invent facts, numbers or names. If the results do not contain the answer, say that they do not. Write plain ' +
  'prose without markdown, headings or source numbers.';

export class LlmAnswerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LlmAnswerError';
  }
}

/** The messages of a chat completion that answers `query` from `hits` only (exported for tests). */
export function answerMessages(query: string, hits: readonly SearchHit[], level: AnswerLevel) {
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
export async function llmAnswer(
  settings: LlmSettings,
  query: string,
  hits: readonly SearchHit[],
  level: AnswerLevel,
): Promise<string> {
  const response = await fetch(`${settings.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {}),
    },
    body: JSON.stringify({
      model: settings.model,
      messages: answerMessages(query, hits, level),
      temperature: 0,
      max_tokens: MAX_TOKENS[level],
      stream: false,
    }),
    signal: AbortSignal.timeout(settings.timeoutMs),
  });
  if (!response.ok) {
    await response.body?.cancel().catch(() => {});
    throw new LlmAnswerError(`chat completions answered ${response.status}`);
  }
  const body = (await response.json()) as { choices?: { message?: { content?: unknown } }[] };
  const content = body.choices?.[0]?.message?.content;
  if (typeof content !== 'string' || !content.trim()) throw new LlmAnswerError('chat completions gave no answer');
  return content.trim();
}
