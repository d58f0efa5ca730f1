import { sseMessages } from './sse-events.js';

const parse = (message: string) => {
  expect(message.endsWith('\n\n')).toBe(true);
  const data = message.split('\n').find((l) => l.startsWith('data: '))!;
  return JSON.parse(data.slice('data: '.length));
};

describe('research SSE messages', () => {
  test('each progress step is one complete chat.completion.chunk message', () => {
    const [search] = sseMessages('id-1', 'mini', { kind: 'search', index: 2, query: 'tides' });
    expect(search!.startsWith('data: ')).toBe(true);
    expect(parse(search!)).toMatchObject({
      id: 'id-1',
      object: 'chat.completion.chunk',
      model: 'mini',
      choices: [
        {
          delta: {
            role: 'assistant',
            tool_calls: {
              type: 'tool_call',
              tool_call: [{ name: 'WebSearch', id: 'search-2', arguments: 'Searching: tides', queries: ['tides'] }],
            },
          },
        },
      ],
    });
    const [content] = sseMessages('id-1', 'pro', { kind: 'content', text: '# Report\n\nline' });
    expect(parse(content!).choices[0].delta.content).toBe('# Report\n\nline');
  });

  test('the end: done, after an error event when the task failed', () => {
    expect(sseMessages('id-1', 'mini', { kind: 'finished', status: 'completed' })).toEqual([
      'event: done\ndata: {"request_id":"id-1","status":"completed"}\n\n',
    ]);
    const failed = sseMessages('id-1', 'mini', { kind: 'finished', status: 'failed', error: 'no sources' });
    expect(failed).toEqual([
      'event: error\ndata: {"request_id":"id-1","status":"failed","error":"no sources"}\n\n',
      'event: done\ndata: {"request_id":"id-1","status":"failed"}\n\n',
    ]);
  });
});
