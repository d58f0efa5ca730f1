import { type IncomingMessage, type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ChatRequest {
  readonly headers: IncomingMessage['headers'];
  readonly body: {
    model: string;
    messages: { role: string; content: string }[];
    temperature: number;
    max_tokens: number;
    response_format?: { type: string };
  };
}

/** What the fake model answers to one request (a string is sent as the assistant's message content). */
export type ChatReply = string | { status: number; body: unknown };

/**
 * An OpenAI-compatible chat-completions server on 127.0.0.1 (`POST /v1/chat/completions`, the real response format),
 * answering each request with what `answer` returns for it. Every request is recorded.
 */
export async function startChatCompletionsServer(answer: (request: ChatRequest) => ChatReply) {
  const requests: ChatRequest[] = [];
  const server: Server = createServer((request, response) => {
    let raw = '';
    request.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    request.on('end', () => {
      if (request.method !== 'POST' || request.url !== '/v1/chat/completions') {
        response.writeHead(404).end();
        return;
      }
      const recorded: ChatRequest = { headers: request.headers, body: JSON.parse(raw) as ChatRequest['body'] };
      requests.push(recorded);
      const reply = answer(recorded);
      if (typeof reply !== 'string') {
        response.writeHead(reply.status, { 'content-type': 'application/json' }).end(JSON.stringify(reply.body));
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          id: `chatcmpl-${requests.length}`,
          object: 'chat.completion',
          created: Math.floor(Date.now() / 1000),
          model: recorded.body.model,
          choices: [{ index: 0, message: { role: 'assistant', content: reply }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 100, completion_tokens: 50, total_tokens: 150 },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
