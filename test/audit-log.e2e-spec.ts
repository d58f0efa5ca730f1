import { verifyReadModels } from '../projections/verify.js';
import { READ_MODEL_PROJECTORS, READ_MODELS_CHECKPOINT } from '../projections/read-models/index.js';
import { migrate } from '../src/database/migrator.js';
import { Database } from '../src/database/database.js';
import { EVENT_STORE, type EventStore } from '../src/event-store/event-store.port.js';
import { eventually } from './support/eventually.js';
import { addMember, call, rename, setUpOrganization, signIn, useTestApp } from './support/test-app.js';

interface Entry {
  occurred_at: string;
  actor: { type: string; id: string; email: string | null };
  action: string;
  target: { kind: string; id: string; name: string | null };
  summary: string;
  details: Record<string, unknown>;
}

/**
 * The audit log (GET /orgs/{org_id}/audit-log): who did what to an organization, its members, projects and keys, and
 * when, from the events; owners and admins only; filters, CSV; the same rows after a rebuild and after migration 011.
 */
describe('the audit log', () => {
  let owner: Awaited<ReturnType<typeof setUpOrganization>>;
  let stranger: Awaited<ReturnType<typeof setUpOrganization>>;
  let adminSession: string;
  let memberSession: string;
  let key: { id: string; key: string; prefix: string };

  const log = async (query = '', token = owner.session) =>
    call(app.url, 'GET', `/orgs/${owner.orgId}/audit-log${query}`, { token });
  const entries = async (query = '') => (await log(query)).body.entries as Entry[];

  const app = useTestApp({ env: { OPERATOR_EMAILS: 'root@ops.test' } }, 90_000);
  beforeAll(async () => {
    owner = await setUpOrganization(app, app.smtp, 'owner@audit.test');
    stranger = await setUpOrganization(app, app.smtp, 'other@audit.test');
    const created = await call(app.url, 'POST', `/orgs/${owner.orgId}/api-keys`, {
      token: owner.session,
      body: { name: '=HYPERLINK("http://evil.test")', project_id: owner.projectId, environment: 'test' },
    });
    expect(created.status).toBe(201);
    key = { id: created.body.id, key: created.body.key, prefix: created.body.prefix };
    adminSession = await addMember(app, app.smtp, owner, 'ana@audit.test', 'admin');
    // The admin renames the key, gives it a budget and revokes it: the log says who.
    await rename(app, { session: adminSession, orgId: owner.orgId }, `api-keys/${key.id}`, 'Nightly');
    const budget = await call(app.url, 'PATCH', `/orgs/${owner.orgId}/api-keys/${key.id}`, {
      token: adminSession,
      body: { monthly_credit_limit: 2500 },
    });
    expect(budget.status).toBe(200);
    expect(
      (await call(app.url, 'DELETE', `/orgs/${owner.orgId}/api-keys/${key.id}`, { token: adminSession })).status,
    ).toBe(200);
    await addMember(app, app.smtp, owner, 'bo@audit.test', 'member');
    await addMember(app, app.smtp, owner, 'bo@audit.test', 'admin');
    memberSession = await addMember(app, app.smtp, owner, 'cy@audit.test', 'member');
    const operator = await signIn(app, app.smtp, 'root@ops.test');
    const plan = await call(app.url, 'PUT', `/orgs/${owner.orgId}/plan`, { token: operator, body: { plan: 'growth' } });
    expect(plan.status).toBe(200);
    const grant = await call(app.url, 'POST', `/orgs/${owner.orgId}/credit-grants`, {
      token: operator,
      body: { credits: 5000, note: 'launch week' },
    });
    expect(grant.status).toBe(201);
    const thresholds = await call(app.url, 'PUT', `/orgs/${owner.orgId}/alert-thresholds`, {
      token: owner.session,
      body: { scope: 'organization', thresholds: [75, 100] },
    });
    expect(thresholds.status).toBe(200);
    await eventually(
      'the audit log holds every action',
      () => entries(),
      (list) => list.length === 15,
    );
  }, 90_000);

  test('every action, newest first: who (by address), what, to which thing, when', async () => {
    const list = await entries();
    expect(list.map((e) => e.summary)).toEqual([
      "Set the alert thresholds of the organization's allowance to 75 %, 100 %",
      'Granted 5,000 credits once (launch week)',
      'Changed the plan to the growth plan: 100,000 credits a month, 1,000 live and 100 test requests a minute',
      'Added cy@audit.test as a member',
      'Changed the role of bo@audit.test from member to admin',
      'Added bo@audit.test as a member',
      `Revoked the key “Nightly” (${key.prefix}…)`,
      `Set the monthly credit limit of the key “Nightly” (${key.prefix}…) to 2,500 credits`,
      'Renamed the key “=HYPERLINK("http://evil.test")” to “Nightly”',
      'Added ana@audit.test as an admin',
      `Created the test key “=HYPERLINK("http://evil.test")” (${key.prefix}…)`,
      'Created the project “Main”',
      // Every organization is created with its default project, recorded as any project's creation.
      'Created the project “Default”',
      'Added owner@audit.test as an owner',
      'Created the organization “owner@audit.test org” on the free plan: 1,000 credits a month, 100 live and 20 test requests a minute',
    ]);
    const revoked = list[6]!;
    expect(revoked).toMatchObject({
      action: 'KeyRevoked',
      actor: { type: 'user', email: 'ana@audit.test' },
      target: { kind: 'key', id: key.id, name: 'Nightly' },
    });
    expect(Date.parse(revoked.occurred_at)).toBeGreaterThan(Date.parse(list.at(-1)!.occurred_at));
    expect(list[1]!.actor).toEqual({ type: 'operator', id: 'root@ops.test', email: null });
    expect(list[2]!.actor).toEqual({ type: 'operator', id: 'root@ops.test', email: null });
    expect(list.at(-1)!.actor).toMatchObject({ type: 'user', email: 'owner@audit.test' });
    // Never a secret: neither the key nor its hash.
    const text = JSON.stringify(list);
    expect(text).not.toContain(key.key);
    expect(text).not.toContain('key_hash');
  });

  test('filters: action, actor, target, UTC days; paged by cursor', async () => {
    expect((await entries('?action=KeyRevoked')).map((e) => e.target.id)).toEqual([key.id]);
    expect((await entries(`?target_id=${key.id}`)).map((e) => e.action)).toEqual([
      'KeyRevoked',
      'KeyBudgetSet',
      'KeyRenamed',
      'KeyCreated',
    ]);
    expect((await entries('?actor=ANA@audit.test')).map((e) => e.action)).toEqual([
      'KeyRevoked',
      'KeyBudgetSet',
      'KeyRenamed',
    ]);
    expect((await entries('?actor=root@ops.test')).map((e) => e.action)).toEqual(['CreditsGranted', 'PlanChanged']);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    expect(await entries(`?start_date=${tomorrow}`)).toEqual([]);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await log(`?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.status).toBe(200);
      seen.push(...(page.body.entries as Entry[]).map((e) => e.summary));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(seen).toEqual((await entries()).map((e) => e.summary));
  });

  test.each([
    ['action=Deleted', /^action /],
    ['target_id=nope', /^target_id /],
    ['limit=501', /^limit /],
    ['cursor=abc', /^cursor /],
    ['start_date=2026-02-30', /^start_date /],
    ['start_date=2026-05-02&end_date=2026-05-01', /^end_date must not be before start_date/],
  ])('%s is a 400 naming the field', async (query, field) => {
    const response = await log(`?${query}`);
    expect(response.status).toBe(400);
    expect(response.body.error).toMatch(field);
  });

  test('owners and admins read it; a plain member, another organization and no session do not', async () => {
    expect((await log('', adminSession)).status).toBe(200);
    for (const token of [memberSession, stranger.session]) {
      const refused = await log('', token);
      expect(refused.status).toBe(404);
      expect(refused.body.error).toBe('organization not found');
    }
    expect((await call(app.url, 'GET', `/orgs/${owner.orgId}/audit-log`)).status).toBe(401);
    // Another organization's log holds its own actions only.
    const theirs = await call(app.url, 'GET', `/orgs/${stranger.orgId}/audit-log`, { token: stranger.session });
    expect((theirs.body.entries as Entry[]).map((e) => e.action)).toEqual([
      'ProjectCreated',
      'ProjectCreated',
      'MemberAdded',
      'OrganizationCreated',
    ]);
  });

  test('CSV (Accept: text/csv): every matching action, neutralised against spreadsheet formulas', async () => {
    const csv = await call(app.url, 'GET', `/orgs/${owner.orgId}/audit-log?target_id=${key.id}`, {
      token: owner.session,
      headers: { accept: 'text/csv' },
    });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    const lines = (csv.body as string).trimEnd().split('\r\n');
    expect(lines[0]).toBe('occurred_at,actor_type,actor,action,target_kind,target_id,target_name,summary');
    expect(lines).toHaveLength(1 + 4);
    expect(lines[4]).toContain(`"'=HYPERLINK(""http://evil.test"")"`);
    expect(lines[1]).toMatch(/,user,ana@audit\.test,KeyRevoked,key,/);
  });

  test('a rebuild from the events, and migration 011 over events appended before it, give the same log', async () => {
    const db = app.app.get(Database);
    const store = app.app.get<EventStore>(EVENT_STORE);
    const options = { checkpointName: READ_MODELS_CHECKPOINT, projectors: READ_MODEL_PROJECTORS };
    expect((await verifyReadModels(db, store, options)).differences).toEqual([]);
    const before = await entries();
    await db.query('DROP TABLE audit_log');
    await db.query(`DELETE FROM schema_migrations WHERE migration_set = 'readModels' AND name = '011_audit_log.sql'`);
    expect(await migrate(db.pool, app.schema, ['readModels'])).toEqual(['readModels/011_audit_log.sql']);
    expect(await entries()).toEqual(before);
    expect((await verifyReadModels(db, store, options)).differences).toEqual([]);
  });
});
