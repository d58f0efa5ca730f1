import type { FastifyRequest } from 'fastify';
import { formatExtract, formatSearch } from './format-results.js';
import { invalidRequestReason, mcpApiKey, prefersEventStream, requestIdOf } from './json-rpc.js';
import { refusal } from './tool-errors.js';

const request = (headers: Record<string, string>, query: Record<string, string> = {}) =>
  ({ headers, query }) as unknown as FastifyRequest;

describe('MCP helpers', () => {
  test('the API key: Bearer, then x-api-key, then tavilyApiKey; a non-Bearer Authorization is no key', () => {
    expect(mcpApiKey(request({ authorization: 'Bearer sk_live_a' }, { tavilyApiKey: 'q' }))).toBe('sk_live_a');
    expect(mcpApiKey(request({ 'x-api-key': ' sk_live_b ' }))).toBe('sk_live_b');
    expect(mcpApiKey(request({}, { tavilyApiKey: 'sk_live_c' }))).toBe('sk_live_c');
    expect(mcpApiKey(request({ authorization: 'Basic abc', 'x-api-key': 'sk_live_b' }))).toBeNull();
    expect(mcpApiKey(request({}))).toBeNull();
  });

  test('SSE only when text/event-stream has the higher quality', () => {
    expect(prefersEventStream('application/json, text/event-stream')).toBe(false);
    expect(prefersEventStream('text/event-stream, application/json')).toBe(false);
    expect(prefersEventStream('application/json;q=0.5, text/event-stream')).toBe(true);
    expect(prefersEventStream('text/event-stream')).toBe(true);
    expect(prefersEventStream(undefined)).toBe(false);
  });

  test('invalid requests, and the id to echo', () => {
    expect(invalidRequestReason({ jsonrpc: '2.0', id: 1, method: 'ping' })).toBeNull();
    expect(invalidRequestReason([{ jsonrpc: '2.0', method: 'notifications/initialized' }])).toBeNull();
    expect(invalidRequestReason({ jsonrpc: '2.0', id: 1, result: {} })).toBeNull();
    expect(invalidRequestReason({ jsonrpc: '2.0', id: 1, method: 'ping', params: [1] })).toMatch(/"params"/);
    expect(invalidRequestReason({ jsonrpc: '2.0', id: 1.5, method: 'ping' })).toMatch(/"id"/);
    expect(invalidRequestReason(null)).toMatch(/not a JSON-RPC 2.0 message/);
    expect(requestIdOf({ id: 'x' })).toBe('x');
    expect(requestIdOf([{ id: 1 }])).toBeNull();
  });

  test('search text in the tavily-mcp layout', () => {
    const text = formatSearch({
      query: 'q',
      answer: 'A.',
      images: ['https://i/1.png', { url: 'https://i/2.png', description: 'two' }],
      results: [
        { title: 'T', url: 'https://u', content: 'C', raw_content: 'R', favicon: 'https://f', published_date: 'D' },
      ],
      usage: { credits: 2 },
    });
    expect(text).toBe(
      [
        'Answer: A.',
        '',
        'Detailed Results:',
        '',
        'Title: T',
        'URL: https://u',
        'Published: D',
        'Content: C',
        'Raw Content: R',
        'Favicon: https://f',
        '',
        'Images:',
        '[1] URL: https://i/1.png',
        '[2] URL: https://i/2.png',
        '   Description: two',
        '',
        'Credits charged: 2',
      ].join('\n'),
    );
    expect(formatSearch({ query: 'q', results: [], images: [] })).toBe('No results found for "q".');
  });

  test('extract text: pages, then failed URLs', () => {
    expect(
      formatExtract({
        results: [{ url: 'https://u', title: null, raw_content: 'R', images: [] }],
        failed_results: [{ url: 'https://x', error: 'HTTP 404' }],
      }),
    ).toBe(
      [
        'Detailed Results:',
        '',
        'Title: (untitled)',
        'URL: https://u',
        'Raw Content: R',
        '',
        'Failed URLs:',
        '- https://x: HTTP 404',
      ].join('\n'),
    );
  });

  test('refusals say why and whether to retry', () => {
    const quota = refusal(402, { error: 'Over.', credits_used: 10, credits_limit: 10 });
    expect(quota.isError).toBe(true);
    expect(quota.content[0]).toEqual({
      type: 'text',
      text: expect.stringMatching(
        /^Refused: HTTP 402 Payment Required\. Over\.\nCredits used this month: 10 of 10\.\nDo not retry/,
      ),
    });
    const rate = refusal(429, { error: 'Slow down.', retry_after: 7 }, { 'Retry-After': '7' });
    expect(rate.content[0]).toMatchObject({ text: expect.stringContaining('Retry after 7 seconds.') });
    const depth = refusal(403, { error: "limited to basic depth; search_depth 'advanced' is not permitted." });
    expect(depth.content[0]).toMatchObject({ text: expect.stringContaining("ask for depth 'basic'") });
    expect(rate._meta).toMatchObject({ 'searchledger/error': { status: 429, retry_after: 7 } });
  });
});
