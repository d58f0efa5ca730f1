import { billingMonth } from '../src/metering/counter-keys.js';
import { MONTH, type LedgerFixture, useLedgerFixture } from './support/ledger-fixture.js';
import { call, signIn } from './support/test-app.js';

/** GET /orgs/{org_id}/usage on a known history of charges, and who may read the usage and the ledger. */
describe('finance and audit: usage, the ledger, its CSV export and `ledger verify`', () => {
  const fixture = useLedgerFixture();
  const { app, usage, ledger } = fixture;
  let owner: LedgerFixture['owner'];
  let stranger: LedgerFixture['stranger'];
  let projectB: LedgerFixture['projectB'];
  let opsKey: LedgerFixture['opsKey'];
  let ciKey: LedgerFixture['ciKey'];
  let batchKey: LedgerFixture['batchKey'];
  let march: LedgerFixture['march'];
  beforeAll(() => {
    ({ owner, stranger, projectB, opsKey, ciKey, batchKey, march } = fixture);
  });

  describe('GET /orgs/{org_id}/usage', () => {
    /** When the organization was created: its plan since then (it never changed). */
    const since = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/) as unknown as string;
    test('totals and breakdowns of a month, exact', async () => {
      const response = await usage(`?month=${MONTH}`);
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        month: MONTH,
        grants: [],
        overage: null,
        plan: { plan: 'free', monthly_credit_allowance: 1000, rate_limit_per_minute: { live: 100, test: 20 }, since },
        credits_limit: 1000,
        credits_limit_parts: { allowance: 1000, grants: 0, overage_cap: 0 },
        credits_used: 8,
        credits_remaining: 992,
        test_credits_used: 0.5,
        requests: 6,
        live_requests: 5,
        test_requests: 1,
        by_project: [
          { project_id: owner.projectId, name: 'Main', environment: 'live', credits: 5, requests: 3 },
          { project_id: projectB, name: 'Batch jobs', environment: 'live', credits: 3, requests: 2 },
          { project_id: owner.projectId, name: 'Main', environment: 'test', credits: 0.5, requests: 1 },
        ],
        by_key: [
          {
            key_id: opsKey.id,
            name: 'Ops, "primary"',
            prefix: opsKey.prefix,
            environment: 'live',
            credits: 5,
            requests: 3,
          },
          { key_id: batchKey.id, name: 'Batch', prefix: batchKey.prefix, environment: 'live', credits: 3, requests: 2 },
          { key_id: ciKey.id, name: 'CI', prefix: ciKey.prefix, environment: 'test', credits: 0.5, requests: 1 },
        ],
        by_operation: [
          { operation: 'search', environment: 'live', credits: 3, requests: 2 },
          { operation: 'crawl', environment: 'live', credits: 2, requests: 1 },
          { operation: 'vertical', environment: 'live', credits: 2, requests: 1 },
          { operation: 'extract', environment: 'live', credits: 1, requests: 1 },
          { operation: 'search', environment: 'test', credits: 0.5, requests: 1 },
        ],
        by_day: [
          { day: '2031-03-01', operation: 'search', environment: 'live', credits: 3, requests: 2 },
          { day: '2031-03-02', operation: 'extract', environment: 'live', credits: 1, requests: 1 },
          { day: '2031-03-02', operation: 'vertical', environment: 'live', credits: 2, requests: 1 },
          { day: '2031-03-02', operation: 'search', environment: 'test', credits: 0.5, requests: 1 },
          { day: '2031-03-03', operation: 'crawl', environment: 'live', credits: 2, requests: 1 },
        ],
      });
    });

    test('the current UTC month by default; a month without usage is all zeros', async () => {
      const current = await usage();
      expect(current.status).toBe(200);
      expect(current.body).toMatchObject({
        month: billingMonth(new Date()),
        credits_used: 1,
        credits_remaining: 999,
        requests: 1,
        live_requests: 1,
        by_operation: [{ operation: 'search', environment: 'live', credits: 1, requests: 1 }],
      });
      const empty = await usage('?month=2030-01');
      expect(empty.body).toEqual({
        month: '2030-01',
        grants: [],
        overage: null,
        plan: { plan: 'free', monthly_credit_allowance: 1000, rate_limit_per_minute: { live: 100, test: 20 }, since },
        credits_limit: 1000,
        credits_limit_parts: { allowance: 1000, grants: 0, overage_cap: 0 },
        credits_used: 0,
        credits_remaining: 1000,
        test_credits_used: 0,
        requests: 0,
        live_requests: 0,
        test_requests: 0,
        by_project: [],
        by_key: [],
        by_operation: [],
        by_day: [],
      });
    });

    test.each(['2031-13', '2031-3', 'march', '', '2031-03-01'])('month=%j is a 400 naming month', async (month) => {
      const response = await usage(`?month=${encodeURIComponent(month)}`);
      expect(response.status).toBe(400);
      expect(response.body.error).toMatch(/^month /);
      expect(response.body.detail).toEqual({ error: response.body.error });
    });
  });

  describe('access', () => {
    test('another organization gets 404, as if the organization did not exist; no session gets 401', async () => {
      for (const response of [
        await usage(`?month=${MONTH}`, stranger.session),
        await ledger('', stranger.session),
        await ledger('', stranger.session, { accept: 'text/csv' }),
      ]) {
        expect(response.status).toBe(404);
        expect(response.body.error).toBe('organization not found');
      }
      const own = await call(app.url, 'GET', `/orgs/${stranger.orgId}/ledger?month=${MONTH}`, {
        token: stranger.session,
      });
      expect(own.body.entries.map((e: { credits: number }) => e.credits)).toEqual([7]);
      expect((await call(app.url, 'GET', `/orgs/${owner.orgId}/usage`)).status).toBe(401);
      expect((await call(app.url, 'GET', `/orgs/not-a-uuid/ledger`, { token: owner.session })).status).toBe(404);
    });

    test('any member may read, whatever the role', async () => {
      const member = await signIn(app, app.smtp, 'bookkeeper@a.test');
      const added = await call(app.url, 'POST', `/orgs/${owner.orgId}/members`, {
        token: owner.session,
        body: { email: 'bookkeeper@a.test', role: 'member' },
      });
      expect(added.status).toBe(201);
      expect((await usage(`?month=${MONTH}`, member)).body.credits_used).toBe(8);
      expect((await ledger(`?month=${MONTH}`, member)).body.entries).toHaveLength(march.length);
    });
  });
});
