import type { ResearchProgress } from './research-progress.js';

/**
 * Progress as Server-Sent Events in the format of Tavily's research stream: each event one complete SSE message,
 * `data:` holding an OpenAI-style `chat.completion.chunk` whose `delta` carries tool calls (Planning, WebSearch,
 * Generating) and their responses, then the report's `content` as it is written, then `sources`; the stream ends
 * with an `event: done` message (after an `event: error` one when the task failed).
 */
export function sseMessages(requestId: string, model: string, progress: ResearchProgress): string[] {
  const chunk = (delta: Record<string, unknown>) =>
    message(null, {
      id: requestId,
      object: 'chat.completion.chunk',
      model,
      created: Math.floor(Date.now() / 1000),
      choices: [{ delta: { role: 'assistant', ...delta } }],
    });
  const toolCall = (name: string, id: string, args: string, extra: Record<string, unknown> = {}) =>
    chunk({ tool_calls: { type: 'tool_call', tool_call: [{ name, id, arguments: args, ...extra }] } });
  const toolResponse = (name: string, id: string, args: string, extra: Record<string, unknown> = {}) =>
    chunk({ tool_calls: { type: 'tool_response', tool_response: [{ name, id, arguments: args, ...extra }] } });
  switch (progress.kind) {
    case 'planning':
      return [toolCall('Planning', 'planning', `Planning the research (${progress.model})`)];
    case 'planned':
      return [
        toolResponse(
          'Planning',
          'planning',
          `Planned ${progress.subQuestions.length} sub-question${progress.subQuestions.length === 1 ? '' : 's'}`,
          {
            sub_questions: progress.subQuestions,
          },
        ),
      ];
    case 'search':
      return [
        toolCall('WebSearch', `search-${progress.index}`, `Searching: ${progress.query}`, {
          queries: [progress.query],
        }),
      ];
    case 'found':
      return [
        toolResponse('WebSearch', `search-${progress.index}`, `Found ${progress.sources.length} sources`, {
          queries: [progress.query],
          sources: progress.sources,
        }),
      ];
    case 'generating':
      return [toolCall('Generating', 'generating', 'Writing the report from the sources read')];
    case 'content':
      return [chunk({ content: progress.text })];
    case 'sources':
      return [chunk({ sources: progress.sources })];
    case 'finished':
      return [
        ...(progress.status === 'failed'
          ? [message('error', { request_id: requestId, status: 'failed', error: progress.error ?? 'failed' })]
          : []),
        message('done', { request_id: requestId, status: progress.status }),
      ];
  }
}

function message(event: string | null, data: unknown): string {
  return `${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`;
}
