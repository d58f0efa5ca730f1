import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { tavily } from '@tavily/core';
import { DocumentIndexWriter } from '../src/documents/document-index.writer.js';
import { Database } from '../src/database/database.js';
import { parseArgs, runEvaluation } from '../src/search/eval/evaluate-search.js';
import { corpusDocuments } from './fixtures/search/corpus.js';
import { changePlan, chargesOf, meteredOrganization } from './support/metering-fixture.js';
import { operatorCli } from './support/operator-cli.js';
import { TEST_DATABASE_URL } from './support/test-database.js';
import { call, useTestApp } from './support/test-app.js';

const DANUBE = 'https://www.danube-guide.eu/rivers/danube';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Result ids and POST /feedback, through @tavily/core's `search()` and `feedback()` unchanged: ids name the request
 * and the position, feedback is stored per organization (free, rate limited), ids of another organization judge
 * nothing, and `feedback export` turns the judgments into a set `eval:search` scores.
 */
describe('search result ids and POST /feedback', () => {
  let org: Awaited<ReturnType<typeof meteredOrganization>>;
  let other: Awaited<ReturnType<typeof meteredOrganization>>;
  let key: string;
  let otherKey: string;

  const app = useTestApp({}, 60_000);
  beforeAll(async () => {
    org = await meteredOrganization(app, app.smtp, 'feedback@a.test');
    other = await meteredOrganization(app, app.smtp, 'feedback-other@b.test');
    await changePlan(app, org.orgId, { plan: 'enterprise' });
    key = (await org.key()).key;
    otherKey = (await other.key()).key;
    await app.app.get(DocumentIndexWriter).upsert(corpusDocuments(new Date()));
  }, 60_000);

  const client = (apiKey = key) => tavily({ apiKey, apiBaseURL: app.url });
  const feedbackRows = async (orgId: string) =>
    (
      await app.app
        .get(Database)
        .query<{ n: string }>('SELECT count(*) AS n FROM search_feedback WHERE org_id = $1', [orgId])
    ).rows[0]!.n;
  const listed = (orgId: string, session: string, query = '') =>
    call(app.url, 'GET', `/orgs/${orgId}/feedback${query}`, { token: session });

  describe('200', () => {
    test('every result has an id naming the request and its position', async () => {
      const response = await client().search('how long is the danube', { maxResults: 3 });
      expect(response.results.length).toBeGreaterThan(1);
      expect(response.results.map((r) => r.id)).toEqual(
        response.results.map((_, i) => `${response.requestId}-${String(i + 1).padStart(2, '0')}`),
      );
    });

    test("a search's results are kept within moments, with no feedback asking for them", async () => {
      const search = await client().search('nile delta', { maxResults: 2 });
      const db = app.app.get(Database);
      const kept = async () =>
        (
          await db.query<{ query: string; results: { id: string }[] }>(
            'SELECT query, results FROM search_result_sets WHERE org_id = $1 AND request_id = $2',
            [org.orgId, search.requestId],
          )
        ).rows[0];
      const deadline = Date.now() + 5000;
      while (!(await kept()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      const row = await kept();
      expect(row?.query).toBe('nile delta');
      expect(row?.results.map((r) => r.id)).toEqual(search.results.map((r) => r.id));
    });

    test('a replay (same Idempotency-Key) answers the same ids', async () => {
      const headers = { 'idempotency-key': `feedback-ids-${Date.now()}` };
      const body = { query: 'rhine low water', max_results: 3 };
      const first = await call(app.url, 'POST', '/search', { token: key, body, headers });
      const again = await call(app.url, 'POST', '/search', { token: key, body, headers });
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.body.results.map((r: { id: string }) => r.id)).toEqual(
        first.body.results.map((r: { id: string }) => r.id),
      );
    });

    test('feedback() is stored with its judgments, free of charge, and listed for members', async () => {
      const search = await client().search('how long is the danube', { maxResults: 3 });
      const danube = search.results.find((r) => r.url === DANUBE)!;
      const other = search.results.find((r) => r.url !== DANUBE)!;
      const chargesBefore = (await chargesOf(app, org.orgId)).length;

      const answer = await client().feedback({
        requestId: search.requestId,
        usedIds: [danube.id!],
        agentScore: 0.9,
        humanScore: '4/5',
        extraScores: [{ label: 'freshness', value: 3 }],
        comment: 'the first result answered it',
        responseDelivered: 'The Danube is about 2,850 km long.',
        usedCitations: [DANUBE],
        urlsScores: [{ id: other.id!, agentScore: 0.1, scores: [{ label: 'relevance', value: 'low' }] }],
        sessionId: 'agent-session-1',
        customField: 'dropped',
      });
      expect(answer).toEqual({
        success: true,
        feedbackId: expect.stringMatching(UUID),
        responseTime: expect.any(Number),
      });
      expect(await chargesOf(app, org.orgId)).toHaveLength(chargesBefore);

      const page = await listed(org.orgId, org.session);
      expect(page.status).toBe(200);
      const entry = page.body.entries[0];
      expect(entry).toMatchObject({
        feedback_id: answer.feedbackId,
        search_request_id: search.requestId,
        feedback: {
          request_id: search.requestId,
          used_ids: [danube.id],
          agent_score: 0.9,
          human_score: '4/5',
          session_id: 'agent-session-1',
          urls_scores: [{ id: other.id, agent_score: 0.1, scores: [{ label: 'relevance', value: 'low' }] }],
        },
      });
      expect(entry.feedback).not.toHaveProperty('customField');
      const gains = Object.fromEntries(entry.judgments.map((j: { url: string; gain: number }) => [j.url, j.gain]));
      expect(gains[DANUBE]).toBe(1);
      expect(gains[other.url]).toBe(0);
      expect(Object.keys(gains).sort()).toEqual(search.results.map((r) => r.url).sort());
      for (const judgment of entry.judgments) expect(judgment.query).toBe('how long is the danube');
    });

    test('ids of another organization judge nothing and are listed as ignored; its listing stays its own', async () => {
      const search = await client().search('danube cruise', { maxResults: 2 });
      const before = await feedbackRows(org.orgId);
      const foreign = await call(app.url, 'POST', '/feedback', {
        token: otherKey,
        body: { request_id: search.requestId, used_ids: search.results.map((r) => r.id), agent_score: 1 },
      });
      expect(foreign.status).toBe(200);
      expect(foreign.body).toMatchObject({
        success: true,
        search_request_id: null,
        ignored_ids: search.results.map((r) => r.id),
      });
      expect(await feedbackRows(org.orgId)).toBe(before);
      const theirs = await listed(other.orgId, other.session);
      expect(theirs.body.entries).toHaveLength(1);
      expect(theirs.body.entries[0].judgments).toEqual([]);
      expect((await listed(org.orgId, other.session)).status).toBe(404);
    });

    test('the listing pages with next_cursor, newest first', async () => {
      for (let i = 0; i < 3; i++) await client().feedback({ comment: `page ${i}` });
      const first = await listed(org.orgId, org.session, '?limit=2');
      expect(first.body.entries.map((e: { feedback: { comment: string } }) => e.feedback.comment)).toEqual([
        'page 2',
        'page 1',
      ]);
      const second = await listed(org.orgId, org.session, `?limit=2&cursor=${first.body.next_cursor}`);
      expect(second.body.entries[0].feedback.comment).toBe('page 0');
      expect((await listed(org.orgId, org.session, '?cursor=nope')).status).toBe(400);
    });

    test('feedback export writes a judged set that eval:search scores', async () => {
      const dir = await mkdtemp(path.join(tmpdir(), 'feedback-export-'));
      try {
        const env = { DATABASE_URL: TEST_DATABASE_URL, DATABASE_SCHEMA: app.schema, LOG_LEVEL: 'error' };
        const { code, stdout } = await operatorCli(env, 'feedback', 'export', org.orgId, '--out', dir, '--json');
        expect(code).toBe(0);
        const report = JSON.parse(stdout);
        expect(report).toMatchObject({ queries: 1, notIndexed: 0 });
        expect(report.documents).toBeGreaterThan(1);
        const queries = (await readFile(path.join(dir, 'queries.jsonl'), 'utf8'))
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l));
        expect(queries).toEqual([{ _id: expect.stringMatching(/^q[0-9a-f]{16}$/), text: 'how long is the danube' }]);
        const qrels = await readFile(path.join(dir, 'qrels', 'feedback.tsv'), 'utf8');
        expect(qrels).toContain(`${queries[0]._id}\t${DANUBE}\t1\n`);

        const printed: string[] = [];
        const [basic] = await runEvaluation(parseArgs([dir, '--depth', 'basic']), {
          databaseUrl: TEST_DATABASE_URL,
          out: (line = '') => printed.push(line),
        });
        expect(basic).toMatchObject({ depth: 'basic', recall100: 1 });
        expect(basic!.ndcg10).toBeGreaterThan(0);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    }, 60_000);
  });

  describe('400', () => {
    const invalid: [string, Record<string, unknown>, RegExp][] = [
      ['used_ids not a list', { used_ids: 'abc-01' }, /^used_ids/],
      ['too many used_ids', { used_ids: Array.from({ length: 101 }, (_, i) => `r-${i + 1}`) }, /^used_ids/],
      ['a used id too long', { used_ids: ['x'.repeat(161)] }, /^used_ids/],
      ['a used URL not a string', { used_urls: [42] }, /^used_urls/],
      ['agent_score an object', { agent_score: { value: 1 } }, /^agent_score must be a number or a text/],
      ['human_score a long text', { human_score: 'x'.repeat(101) }, /^human_score/],
      ['comment too long', { comment: 'x'.repeat(4001) }, /^comment/],
      ['request_id malformed', { request_id: 'not a request id!' }, /^request_id must be a request id/],
      ['extra_scores not a list', { extra_scores: { label: 'a', value: 1 } }, /^extra_scores/],
      ['a labeled score without label', { extra_scores: [{ value: 1 }] }, /^extra_scores\.0\.label/],
      ['urls_scores item not an object', { urls_scores: ['https://a.test'] }, /^urls_scores/],
      ['a url score with a bad score', { urls_scores: [{ url: 'https://a.test', agent_score: [1] }] }, /agent_score/],
    ];
    test.each(invalid)('%s: 400 naming the field, nothing stored', async (_, body, message) => {
      const before = await feedbackRows(org.orgId);
      const response = await call(app.url, 'POST', '/feedback', { token: key, body });
      expect(response.status).toBe(400);
      expect(response.body.error).toMatch(message);
      expect(response.body.detail).toEqual({ error: response.body.error });
      expect(response.headers.get('x-ratelimit-limit')).not.toBeNull();
      expect(await feedbackRows(org.orgId)).toBe(before);
    });

    test.each([
      ['an array', '[]'],
      ['a string', '"good"'],
      ['null', 'null'],
    ])('a body that is %s: 400, nothing stored', async (_, text) => {
      const before = await feedbackRows(org.orgId);
      const response = await call(app.url, 'POST', '/feedback', { token: key, body: text });
      expect(response.status).toBe(400);
      expect(response.body.error).toBe('The body must be a JSON object.');
      expect(await feedbackRows(org.orgId)).toBe(before);
    });

    test('@tavily/core shows the message', async () => {
      await expect(client().feedback({ usedIds: 'abc-01' as unknown as string[] })).rejects.toThrow(/^used_ids/);
    });

    test('a body that is not JSON: 415', async () => {
      const response = await call(app.url, 'POST', '/feedback', {
        token: key,
        body: 'comment=x',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(response.status).toBe(415);
    });
  });

  describe('401', () => {
    test('without a key, or with one that is not a key', async () => {
      const missing = await call(app.url, 'POST', '/feedback', { body: { comment: 'x' } });
      expect(missing.status).toBe(401);
      expect(missing.body.error).toMatch(/API key/);
      await expect(client('tvly-not-a-key').feedback({ comment: 'x' })).rejects.toThrow(/API key/);
    });
  });

  describe('429', () => {
    test('over the rate limit of the key, like every data-plane call', async () => {
      await changePlan(app, other.orgId, { plan: 'free', rpmLive: 2 });
      const limited = (await other.key()).key;
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) {
        statuses.push((await call(app.url, 'POST', '/feedback', { token: limited, body: { comment: `${i}` } })).status);
      }
      expect(statuses).toEqual([200, 200, 429]);
      const refused = await call(app.url, 'POST', '/feedback', { token: limited, body: {} });
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    });
  });
});
