import type { RerankSettings } from '../../../config/app-config.js';
import { rerankEndpoint } from './rerank-request.js';

const settings = (url: string, format: RerankSettings['format']): RerankSettings => ({
  url,
  format,
  model: null,
  apiKey: null,
  timeoutMs: 800,
});

describe('rerankEndpoint', () => {
  test.each([
    ['http://tei:8080', 'tei', 'http://tei:8080/rerank'],
    ['https://api.cohere.com', 'cohere', 'https://api.cohere.com/v1/rerank'],
    ['https://api.cohere.com/v1', 'cohere', 'https://api.cohere.com/v1/rerank'],
    ['https://api.jina.ai/v1/rerank', 'cohere', 'https://api.jina.ai/v1/rerank'],
    ['http://gateway/models/bge/rerank', 'tei', 'http://gateway/models/bge/rerank'],
  ] as const)('%s (%s) → %s', (url, format, endpoint) => {
    expect(rerankEndpoint(settings(url, format))).toBe(endpoint);
  });
});
