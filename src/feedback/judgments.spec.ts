import type { LoggedSearch } from '../search/result-log/search-result-log.js';
import { resultId } from '../search/result-log/result-ids.js';
import type { FeedbackRequestDto } from './dto/feedback-request.dto.js';
import { gainOfScore, requestIdsOf, resolveFeedback } from './judgments.js';

const search = (requestId: string, query: string, urls: string[]): LoggedSearch => ({
  requestId,
  query,
  depth: 'basic',
  results: urls.map((url, i) => ({ id: resultId(requestId, i + 1), url, title: url, score: 1 - i / 10 })),
});
const A = search('req-a', 'danube length', ['https://a.test/1', 'https://a.test/2', 'https://a.test/3']);
const B = search('req-b', 'nile delta', ['https://b.test/1', 'https://b.test/2']);
const kept = new Map([
  [A.requestId, A],
  [B.requestId, B],
]);
const feedback = (fields: FeedbackRequestDto): FeedbackRequestDto => fields;

describe('feedback judgments', () => {
  test('used ids gain 1, the other results shown gain 0, filed under the search they name', () => {
    const resolved = resolveFeedback(feedback({ used_ids: [A.results[1]!.id] }), kept);
    expect(resolved.searchRequestId).toBe('req-a');
    expect(resolved.ignoredIds).toEqual([]);
    expect(resolved.judgments).toEqual([
      { request_id: 'req-a', query: 'danube length', url: 'https://a.test/2', gain: 1 },
      { request_id: 'req-a', query: 'danube length', url: 'https://a.test/1', gain: 0 },
      { request_id: 'req-a', query: 'danube length', url: 'https://a.test/3', gain: 0 },
    ]);
  });

  test('ids that name no kept result (unknown request, wrong position, forged suffix) are ignored', () => {
    const ids = [resultId('req-other-org', 1), resultId('req-a', 9), 'req-a-1', 'not an id'];
    const resolved = resolveFeedback(feedback({ used_ids: ids }), kept);
    expect(resolved).toEqual({ searchRequestId: null, judgments: [], ignoredIds: ids });
  });

  test('used URLs judge the searches that showed them; others go to the search filed under', () => {
    const resolved = resolveFeedback(
      feedback({
        request_id: 'req-b',
        used_ids: [A.results[0]!.id],
        used_urls: ['https://b.test/2', 'https://c.test'],
      }),
      kept,
    );
    expect(resolved.searchRequestId).toBe('req-b');
    const gains = Object.fromEntries(resolved.judgments.map((j) => [`${j.request_id} ${j.url}`, j.gain]));
    expect(gains).toEqual({
      'req-b https://b.test/2': 1,
      'req-b https://c.test': 1,
      'req-b https://b.test/1': 0,
      'req-a https://a.test/1': 1,
      'req-a https://a.test/2': 0,
      'req-a https://a.test/3': 0,
    });
  });

  test('scores override use: 0–1 is relevant from 0.5, larger numbers are graded, texts count as used', () => {
    const resolved = resolveFeedback(
      feedback({
        used_ids: [A.results[0]!.id],
        urls_scores: [
          { id: A.results[0]!.id, agent_score: 0.2 },
          { id: A.results[1]!.id, agent_score: '3' },
          { url: 'https://a.test/3', agent_score: 'very good' },
        ],
      }),
      kept,
    );
    expect(resolved.judgments.map((j) => [j.url, j.gain])).toEqual([
      ['https://a.test/1', 0],
      ['https://a.test/2', 3],
      ['https://a.test/3', 1],
    ]);
  });

  test('a feedback that says nothing about results judges nothing', () => {
    const resolved = resolveFeedback(feedback({ request_id: 'req-a', agent_score: 0.9, comment: 'fine' }), kept);
    expect(resolved).toEqual({ searchRequestId: 'req-a', judgments: [], ignoredIds: [] });
  });

  test('the request ids a feedback names', () => {
    expect(
      requestIdsOf(feedback({ request_id: 'r1', used_ids: ['r2-01', 'bad'], urls_scores: [{ id: 'r3-02' }] })),
    ).toEqual(['r1', 'r2', 'r3']);
  });

  test('gains of scores', () => {
    expect([0, 0.49, 0.5, 1, 2.4, 2.6, '0.7', -1, 'x', '', undefined].map(gainOfScore)).toEqual([
      0,
      0,
      1,
      1,
      2,
      3,
      1,
      null,
      null,
      null,
      null,
    ]);
  });
});
