import { jest } from '@jest/globals';
import { KeyLookupService } from '../src/keys/key-lookup.service.js';
import { changePlan, chargesOf, meteredOrganization } from './support/metering-fixture.js';
import { MeteredTestRoutesModule } from './support/metered-test-routes.js';
import { call, useTestApp } from './support/test-app.js';

describe('the metering pipeline, on routes registered only by the tests', () => {
  let org: Awaited<ReturnType<typeof meteredOrganization>>;
  let live: { id: string; key: string };

  const app = useTestApp({ modules: [MeteredTestRoutesModule] });
  beforeAll(async () => {
    org = await meteredOrganization(app, app.smtp, 'meter@a.test');
    live = await org.key();
  });

  const post = (
    path: string,
    body: Record<string, unknown>,
    key: string | null = live.key,
    headers: Record<string, string> = {},
  ) => call(app.url, 'POST', path, { body, ...(key ? { token: key } : {}), headers });
  const used = (response: { headers: Headers }) => Number(response.headers.get('x-credits-used'));

  describe('200', () => {
    test('the key works from the Authorization header, the x-api-key header and the body, and api_key never reaches the handler', async () => {
      const bearer = await post('/test/search', { query: 'a' });
      const header = await post('/test/search', { query: 'b' }, null, { 'x-api-key': live.key });
      const inBody = await post('/test/search', { query: 'c', api_key: live.key }, null);
      for (const response of [bearer, header, inBody]) {
        expect(response.status).toBe(200);
        expect(response.body.received_fields).not.toContain('api_key');
        expect(response.body.org_id).toBe(org.orgId);
      }
    });

    test('usage headers on every metered response, and `usage` in the body on request', async () => {
      const first = await post('/test/search', { query: 'headers', include_usage: true });
      expect(first.status).toBe(200);
      expect(first.headers.get('x-ratelimit-limit')).toBe('100');
      expect(Number(first.headers.get('x-ratelimit-remaining'))).toBeLessThan(100);
      expect(first.headers.get('x-credits-limit')).toBe('1000');
      expect(used(first) + Number(first.headers.get('x-credits-remaining'))).toBe(1000);
      expect(first.body.usage).toEqual({ credits: 1, breakdown: [{ item: 'search:basic', credits: 1 }] });
      expect(typeof first.body.request_id).toBe('string');
      const second = await post('/test/search', { query: 'headers' });
      expect(used(second)).toBe(used(first) + 1);
      expect(Number(second.headers.get('x-ratelimit-remaining'))).toBe(
        Number(first.headers.get('x-ratelimit-remaining')) - 1,
      );
      expect(second.body.usage).toBeUndefined();
    });

    test.each([
      [{ search_depth: 'basic' }, 1],
      [{ search_depth: 'fast' }, 1],
      [{ search_depth: 'ultra-fast' }, 1],
      [{ search_depth: 'advanced' }, 2],
      [{ include_answer: true }, 2],
      [{ include_answer: 'basic' }, 2],
      [{ include_answer: 'advanced' }, 3],
      [{ search_depth: 'advanced', include_answer: 'advanced' }, 4],
    ])('search %j costs %i', async (options, credits) => {
      const response = await post('/test/search', { query: 'price', include_usage: true, ...options });
      expect(response.status).toBe(200);
      expect(response.body.usage.credits).toBe(credits);
    });

    test('an answer asked for and not returned is not billed: the search alone, the surcharge item at 0', async () => {
      const fresh = await meteredOrganization(app, app.smtp, 'unanswered@a.test');
      const key = (await fresh.key()).key;
      const answered = await post('/test/search', { query: 'answered', include_answer: 'advanced' }, key);
      expect(answered.body.answer).not.toBeNull();
      expect(used(answered)).toBe(3);
      const response = await post(
        '/test/search',
        { query: 'unanswerable', search_depth: 'advanced', include_answer: 'advanced', include_usage: true },
        key,
      );
      expect(response.status).toBe(200);
      expect(response.body.answer).toBeNull();
      expect(response.body.usage).toEqual({
        credits: 2,
        breakdown: [
          { item: 'search:advanced', credits: 2 },
          { item: 'answer:advanced', credits: 0 },
        ],
      });
      // The reservation held the surcharge too; what was not charged went back.
      expect(used(response)).toBe(3 + 2);
      const charges = await chargesOf(app, fresh.orgId);
      expect(charges.map((c) => [c.credits, c.counts])).toEqual([
        [3, { results: 0, answers: 1 }],
        [2, { results: 0, answers: 0 }],
      ]);
    });

    test('verticals follow their table', async () => {
      const products = await post('/test/search/products', { query: 'shoes', include_usage: true });
      const news = await post('/test/search/news', { query: 'today', include_usage: true });
      expect(products.body.usage.credits).toBe(2);
      expect(news.body.usage.credits).toBe(1);
    });

    test('extract: 1 credit per 5 successful URLs over the month, failed URLs free; advanced costs 2 per 5', async () => {
      const fresh = await meteredOrganization(app, app.smtp, 'extract@a.test');
      const key = (await fresh.key()).key;
      const extract = (urls: string[], depth = 'basic') =>
        post('/test/extract', { urls, extract_depth: depth, include_usage: true }, key);
      const three = await extract(['https://a/1', 'https://a/2', 'https://a/3', 'https://a/fail']);
      expect(three.body.usage.credits).toBe(0);
      expect(three.body.failed_results).toHaveLength(1);
      const two = await extract(['https://a/4', 'https://a/5']);
      expect(two.body.usage.credits).toBe(1);
      const allFailed = await extract(['https://a/fail-1', 'https://a/fail-2']);
      expect(allFailed.status).toBe(200);
      expect(allFailed.body.usage.credits).toBe(0);
      const twelve = await extract(Array.from({ length: 12 }, (_, i) => `https://a/b${i}`));
      expect(twelve.body.usage.credits).toBe(2);
      const advanced = await extract(
        Array.from({ length: 5 }, (_, i) => `https://a/c${i}`),
        'advanced',
      );
      expect(advanced.body.usage).toEqual({ credits: 2, breakdown: [{ item: 'extract:advanced', credits: 2 }] });
      expect(used(advanced)).toBe(1 + 2 + 2);
      const charges = await chargesOf(app, fresh.orgId);
      expect(charges.map((c) => c.credits)).toEqual([0, 1, 0, 2, 2]);
      expect(charges[0]!.counts).toEqual({ successful_urls: 3, failed_urls: 1 });
      expect(charges[0]!.pricing.units).toEqual({
        price_class: 'extract:basic',
        count: 3,
        units_per_block: 5,
        credits_per_block: 1,
      });
    });

    test('map: 1 credit per 10 pages, 2 with instructions; crawl: as extract per extracted page', async () => {
      const fresh = await meteredOrganization(app, app.smtp, 'pages@a.test');
      const key = (await fresh.key()).key;
      const map = await post('/test/map', { url: 'https://site', pages: 25, include_usage: true }, key);
      expect(map.body.results).toHaveLength(25);
      expect(map.body.usage.credits).toBe(2);
      const mapMore = await post('/test/map', { url: 'https://site', pages: 5, include_usage: true }, key);
      expect(mapMore.body.usage.credits).toBe(1);
      const instructed = await post(
        '/test/map',
        { url: 'https://site', pages: 10, instructions: 'docs', include_usage: true },
        key,
      );
      expect(instructed.body.usage.credits).toBe(2);
      const crawl = await post(
        '/test/crawl',
        { url: 'https://site', pages: 7, extract_depth: 'advanced', include_usage: true },
        key,
      );
      expect(crawl.body.usage.credits).toBe(2);
      expect(used(crawl)).toBe(2 + 1 + 2 + 2);
    });

    test('one CreditsCharged per billed call, with what priced it', async () => {
      const fresh = await meteredOrganization(app, app.smtp, 'ledger@a.test');
      const key = await fresh.key();
      const response = await post(
        '/test/search',
        { query: 'ledger', search_depth: 'advanced', include_answer: true },
        key.key,
      );
      const charges = await chargesOf(app, fresh.orgId);
      expect(charges).toHaveLength(1);
      expect(charges[0]).toMatchObject({
        org_id: fresh.orgId,
        project_id: fresh.projectId,
        key_id: key.id,
        key_environment: 'live',
        operation: 'search',
        channel: 'rest',
        depth: 'advanced',
        credits: 3,
        request_id: response.body.request_id,
        idempotency_key: null,
        billing_month: new Date().toISOString().slice(0, 7),
        pricing: {
          items: [
            { item: 'search:advanced', credits: 2 },
            { item: 'answer:basic', credits: 1 },
          ],
          units: null,
        },
      });
    });

    test('a test key is recorded in the ledger but does not consume the live allowance', async () => {
      const fresh = await meteredOrganization(app, app.smtp, 'testkey@a.test');
      const testKey = await fresh.key({ environment: 'test' });
      const liveKey = await fresh.key();
      const before = await post('/test/search', { query: 'live' }, liveKey.key);
      const viaTest = await post(
        '/test/search',
        { query: 'test', search_depth: 'advanced', include_usage: true },
        testKey.key,
      );
      expect(viaTest.status).toBe(200);
      expect(viaTest.body.usage.credits).toBe(2);
      expect(viaTest.headers.get('x-ratelimit-limit')).toBe('20');
      // Its usage headers count the test credits (this call's 2), not the live allowance's.
      expect(used(before)).toBe(1);
      expect(used(viaTest)).toBe(2);
      const charges = await chargesOf(app, fresh.orgId);
      expect(charges.map((c) => [c.key_environment, c.credits])).toEqual([
        ['live', 1],
        ['test', 2],
      ]);
    });

    test('Idempotency-Key: a repeat returns the first response, marked replayed, and is billed once', async () => {
      const fresh = await meteredOrganization(app, app.smtp, 'idem@a.test');
      const key = (await fresh.key()).key;
      const headers = { 'idempotency-key': 'retry-1' };
      const first = await post('/test/search', { query: 'once', include_usage: true }, key, headers);
      const again = await post('/test/search', { query: 'once', include_usage: true }, key, headers);
      expect(again.status).toBe(200);
      expect(again.body).toEqual(first.body);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      expect(again.headers.get('x-credits-used')).toBe(first.headers.get('x-credits-used'));
      const charges = await chargesOf(app, fresh.orgId);
      expect(charges.filter((c) => c.idempotency_key === 'retry-1')).toHaveLength(1);
      const onAnotherVertical = await post('/test/search/news', { query: 'once' }, key, {
        'idempotency-key': 'vertical-1',
      });
      const sameKeyOtherVertical = await post('/test/search/images', { query: 'once' }, key, {
        'idempotency-key': 'vertical-1',
      });
      expect(onAnotherVertical.status).toBe(200);
      expect(sameKeyOtherVertical.status).toBe(422);
      const otherOrg = await meteredOrganization(app, app.smtp, 'idem-other@a.test');
      const sameKeyElsewhere = await post('/test/search', { query: 'once' }, (await otherOrg.key()).key, headers);
      expect(sameKeyElsewhere.headers.get('idempotent-replayed')).toBeNull();
    });
  });

  describe('GET /usage', () => {
    test("this key's and the organization's credits this month, in the Tavily shape, free of charge", async () => {
      const fresh = await meteredOrganization(app, app.smtp, 'usage@a.test');
      const first = await fresh.key();
      const second = await fresh.key();
      await post('/test/search', { query: 'a', search_depth: 'advanced' }, first.key);
      await post('/test/extract', { urls: Array.from({ length: 5 }, (_, i) => `https://u/${i}`) }, first.key);
      await post('/test/search', { query: 'b' }, second.key);
      const charges = await chargesOf(app, fresh.orgId);
      expect(charges).toHaveLength(3);
      // The per-operation figures come from the read models: /usage waits until they include the calls before it.
      const usage = await call(app.url, 'GET', '/usage', { token: first.key });
      expect(usage.status).toBe(200);
      expect(usage.body.key).toMatchObject({
        usage: 3,
        limit: null,
        search_usage: 2,
        extract_usage: 1,
        crawl_usage: 0,
        map_usage: 0,
      });
      expect(usage.body.account).toMatchObject({
        current_plan: 'free',
        plan_usage: 4,
        plan_limit: 1000,
        search_usage: 3,
        extract_usage: 1,
      });
      expect(usage.headers.get('x-ratelimit-limit')).toBe('100');
      expect(usage.headers.get('x-credits-used')).toBe('4');
      expect(await chargesOf(app, fresh.orgId)).toHaveLength(3);
      expect((await call(app.url, 'GET', '/usage', {})).status).toBe(401);
    });

    test("X-Project-ID narrows the account figures to a project; the key figures stay the key's", async () => {
      const fresh = await meteredOrganization(app, app.smtp, 'usage-projects@a.test');
      const other = await call(app.url, 'POST', `/orgs/${fresh.orgId}/projects`, {
        token: fresh.session,
        body: { name: 'other' },
      });
      expect(other.status).toBe(201);
      const inFirst = await fresh.key();
      const inOther = await fresh.key({ project_id: other.body.id });
      await post('/test/search', { query: 'a', search_depth: 'advanced' }, inFirst.key);
      await post('/test/search', { query: 'b' }, inOther.key);
      await post('/test/extract', { urls: Array.from({ length: 5 }, (_, i) => `https://u/${i}`) }, inOther.key);
      const usage = (projectId: string) =>
        call(app.url, 'GET', '/usage', { token: inFirst.key, headers: { 'x-project-id': projectId } });
      const first = await usage(fresh.projectId);
      expect(first.body.account).toMatchObject({ plan_usage: 2, search_usage: 2, extract_usage: 0 });
      expect(first.body.key).toMatchObject({ usage: 2, search_usage: 2, extract_usage: 0 });
      const second = await usage(other.body.id);
      expect(second.body.account).toMatchObject({ plan_usage: 2, search_usage: 1, extract_usage: 1 });
      expect(second.body.key).toMatchObject({ usage: 2, search_usage: 2 });
      expect(second.headers.get('x-credits-used')).toBe('4');
    });
  });

  describe('400', () => {
    test('an invalid body is refused after authentication, with the usage headers, and costs nothing', async () => {
      const before = await post('/test/search', { query: 'x' });
      const bad = await post('/test/search', { query: '' });
      expect(bad.status).toBe(400);
      expect(bad.body.error).toMatch(/query/);
      expect(bad.body.detail.error).toBe(bad.body.error);
      expect(used(bad)).toBe(used(before));
      const broken = await call(app.url, 'POST', '/test/search', { token: live.key, body: '{"query":' });
      expect(broken.status).toBe(400);
      const after = await post('/test/search', { query: 'y' });
      expect(used(after)).toBe(used(before) + 1);
    });
  });

  describe('401', () => {
    test('missing, malformed, unknown and revoked keys; a malformed key costs no lookup', async () => {
      const lookup = jest.spyOn(app.app.get(KeyLookupService), 'lookup');
      try {
        const missing = await post('/test/search', { query: 'q' }, null);
        expect(missing.status).toBe(401);
        expect(missing.body).toEqual({
          error: 'Unauthorized: missing or invalid API key.',
          detail: { error: 'Unauthorized: missing or invalid API key.' },
        });
        const malformed = await post('/test/search', { query: 'q' }, 'tvly-not-ours');
        expect(malformed.status).toBe(401);
        expect(lookup).not.toHaveBeenCalled();
        const notBearer = await call(app.url, 'POST', '/test/search', {
          body: { query: 'q' },
          headers: { authorization: `Basic ${live.key}` },
        });
        expect(notBearer.status).toBe(401);
      } finally {
        lookup.mockRestore();
      }
      expect((await post('/test/search', { query: 'q' }, 'sk_live_' + 'Q'.repeat(32))).status).toBe(401);
      const doomed = await org.key();
      expect((await post('/test/search', { query: 'q' }, doomed.key)).status).toBe(200);
      await call(app.url, 'DELETE', `/orgs/${org.orgId}/api-keys/${doomed.id}`, { token: org.session });
      const revoked = await post('/test/search', { query: 'q' }, doomed.key);
      expect(revoked.status).toBe(401);
      expect(revoked.body.error).toMatch(/revoked/);
      const session = await post('/test/search', { query: 'q' }, org.session);
      expect(session.status).toBe(401);
    });
  });

  describe('402', () => {
    test('an exhausted allowance refuses with credits_used and credits_limit, and never goes past it', async () => {
      const fresh = await meteredOrganization(app, app.smtp, 'quota@a.test');
      const key = (await fresh.key()).key;
      await changePlan(app, fresh.orgId, { allowance: 5 });
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++)
        statuses.push((await post('/test/search', { query: 'spend', search_depth: 'advanced' }, key)).status);
      expect(statuses).toEqual([200, 200, 402, 402]);
      const basic = await post('/test/search', { query: 'last one' }, key);
      expect(basic.status).toBe(200);
      expect(used(basic)).toBe(5);
      const refused = await post('/test/search', { query: 'over' }, key);
      expect(refused.status).toBe(402);
      expect(refused.body).toMatchObject({ credits_used: 5, credits_limit: 5 });
      expect(refused.body.detail.error).toBe(refused.body.error);
      expect(refused.headers.get('x-credits-limit')).toBe('5');
      expect(refused.headers.get('x-credits-used')).toBe('5');
      expect(refused.headers.get('x-credits-remaining')).toBe('0');
      expect(refused.headers.get('x-ratelimit-limit')).toBe('100');
      const charges = await chargesOf(app, fresh.orgId);
      expect(charges.reduce((sum, c) => sum + c.credits, 0)).toBe(5);
      await changePlan(app, fresh.orgId, { allowance: 6 });
      expect((await post('/test/search', { query: 'raised' }, key)).status).toBe(200);
    });
  });

  describe('403', () => {
    test('a key without the scope, and a basic-depth key asking for advanced', async () => {
      const extractOnly = (await org.key({ scopes: ['extract'] })).key;
      const noScope = await post('/test/search', { query: 'q' }, extractOnly);
      expect(noScope.status).toBe(403);
      expect(noScope.body.error).toMatch(/'search' scope/);
      expect((await post('/test/extract', { urls: ['https://x'] }, extractOnly)).status).toBe(200);
      expect((await post('/test/search/news', { query: 'q' }, extractOnly)).status).toBe(403);

      const basicOnly = (await org.key({ depth_limit: 'basic' })).key;
      const advancedSearch = await post('/test/search', { query: 'q', search_depth: 'advanced' }, basicOnly);
      expect(advancedSearch.status).toBe(403);
      expect(advancedSearch.body.error).toMatch(/basic depth/);
      const advancedExtract = await post(
        '/test/extract',
        { urls: ['https://x'], extract_depth: 'advanced' },
        basicOnly,
      );
      expect(advancedExtract.status).toBe(403);
      expect((await post('/test/search', { query: 'q', search_depth: 'basic' }, basicOnly)).status).toBe(200);
    });
  });

  describe('409 and 422', () => {
    test('a repeat while the first is running is a 409; the same key with another body is a 422; neither is billed', async () => {
      const fresh = await meteredOrganization(app, app.smtp, 'conflict@a.test');
      const key = (await fresh.key()).key;
      const headers = { 'idempotency-key': 'slow-1' };
      const slow = post('/test/search', { query: 'slow', delay_ms: 400 }, key, headers);
      await new Promise((resolve) => setTimeout(resolve, 100));
      const during = await post('/test/search', { query: 'slow', delay_ms: 400 }, key, headers);
      expect(during.status).toBe(409);
      expect(during.body.error).toMatch(/still being processed/);
      expect((await slow).status).toBe(200);
      const different = await post('/test/search', { query: 'other' }, key, headers);
      expect(different.status).toBe(422);
      expect(different.body.error).toMatch(/different request body/);
      expect(await chargesOf(app, fresh.orgId)).toHaveLength(1);
    });
  });

  describe('429', () => {
    test('over the per-minute limit of the key: Retry-After and the headers that apply', async () => {
      const fresh = await meteredOrganization(app, app.smtp, 'rate@a.test');
      const key = (await fresh.key({ environment: 'test' })).key;
      await changePlan(app, fresh.orgId, { rpmTest: 3 });
      const responses = [];
      for (let i = 0; i < 4; i++) responses.push(await post('/test/search', { query: 'fast' }, key));
      expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 429]);
      expect(responses.map((r) => r.headers.get('x-ratelimit-remaining'))).toEqual(['2', '1', '0', '0']);
      const limited = responses[3]!;
      expect(limited.headers.get('x-ratelimit-limit')).toBe('3');
      const retryAfter = Number(limited.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(limited.headers.get('x-credits-limit')).toBe('1000');
      expect(limited.body.error).toMatch(/excessive requests/);
      expect(await chargesOf(app, fresh.orgId)).toHaveLength(3);
    });

    test('a live key (rate limit and reservation in one step): the same answers, and a refused call reserves nothing', async () => {
      const fresh = await meteredOrganization(app, app.smtp, 'rate-live@a.test');
      const key = (await fresh.key()).key;
      await changePlan(app, fresh.orgId, { rpmLive: 2 });
      const responses = [];
      for (let i = 0; i < 3; i++) responses.push(await post('/test/search', { query: 'fast' }, key));
      expect(responses.map((r) => r.status)).toEqual([200, 200, 429]);
      expect(responses.map((r) => r.headers.get('x-ratelimit-remaining'))).toEqual(['1', '0', '0']);
      expect(responses.map((r) => r.headers.get('x-ratelimit-limit'))).toEqual(['2', '2', '2']);
      const limited = responses[2]!;
      const retryAfter = Number(limited.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(limited.body.retry_after).toBe(retryAfter);
      expect(limited.body.error).toMatch(/excessive requests/);
      expect(used(limited)).toBe(used(responses[1]!));
      expect(used(limited)).toBe(2);
      expect(limited.headers.get('x-credits-remaining')).toBe('998');
      expect(await chargesOf(app, fresh.orgId)).toHaveLength(2);
    });
  });

  describe('502', () => {
    test('an upstream failure is a 502, free of charge, with the reservation given back', async () => {
      const before = await post('/test/search', { query: 'fine' });
      const failed = await post('/test/search', { query: 'upstream-down', search_depth: 'advanced' });
      expect(failed.status).toBe(502);
      expect(failed.body.error).toMatch(/upstream/);
      expect(used(failed)).toBe(used(before));
      const chargedRequests = (await chargesOf(app, org.orgId)).map((c) => c.request_id);
      expect(chargedRequests).not.toContain(failed.headers.get('x-request-id'));
    });
  });
});
