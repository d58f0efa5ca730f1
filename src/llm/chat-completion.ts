/** An OpenAI-compatible chat-completions API (LLM_BASE_URL, LLM_MODEL, LLM_API_KEY): search answers and research. */
export interface LlmSettings {
  readonly baseUrl: string;
  readonly model: string;
  readonly apiKey: string | null;
  readonly timeoutMs: number;
}

export interface ChatMessage {
  readonly role: 'system' | 'user' | 'assistant';
  readonly content: string;
}

export class ChatCompletionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ChatCompletionError';
  }
}

/** One `POST {baseUrl}/chat/completions` of an OpenAI-compatible API; the assistant's text. */
export async function chatCompletion(
  settings: LlmSettings,
  messages: readonly ChatMessage[],
  options: { maxTokens: number; json?: boolean; signal?: AbortSignal },
): Promise<string> {
  const timeout = AbortSignal.timeout(settings.timeoutMs);
  const response = await fetch(`${settings.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {}),
    },
    body: JSON.stringify({
      model: settings.model,
      messages,
      temperature: 0,
      max_tokens: options.maxTokens,
      stream: false,
      ...(options.json ? { response_format: { type: 'json_object' } } : {}),
    }),
    signal: options.signal ? AbortSignal.any([timeout, options.signal]) : timeout,
  });
  if (!response.ok) {
    await response.body?.cancel().catch(() => {});
    throw new ChatCompletionError(`chat completions answered ${response.status}`);
  }
  const body = (await response.json()) as { choices?: { message?: { content?: unknown } }[] };
  const content = body.choices?.[0]?.message?.content;
  if (typeof content !== 'string' || !content.trim()) throw new ChatCompletionError('chat completions gave no content');
  return content.trim();
}

/** The JSON object in a model's answer (models sometimes wrap it in a code fence or a sentence). */
export function parseJsonObject(text: string): Record<string, unknown> {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end <= start) throw new ChatCompletionError('the model answered no JSON object');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.slice(start, end + 1));
  } catch {
    throw new ChatCompletionError('the model answered malformed JSON');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ChatCompletionError('the model answered no JSON object');
  }
  return parsed as Record<string, unknown>;
}
