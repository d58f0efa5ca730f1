import { READ_MODEL_PROJECTORS, READ_MODELS_CHECKPOINT } from '../projections/read-models/index.js';
import { verifyReadModels } from '../projections/verify.js';
import { Database } from '../src/database/database.js';
import { migrate } from '../src/database/migrator.js';
import { EVENT_STORE, type EventStore } from '../src/event-store/event-store.port.js';
import { parseCsv } from './support/csv.js';
import { eventually } from './support/eventually.js';
import { call, rename, setUpOrganization, useTestApp } from './support/test-app.js';

interface Entry {
  charge_id: string;
  request_id: string;
  project_name: string | null;
  project_name_now: string | null;
  key_name: string | null;
  key_name_now: string | null;
}

type Table = Record<string, string>[];

/** A CSV as rows of header → cell. */
function rowsOf(text: string): Table {
  const [header, ...records] = parseCsv(text);
  return records.map((record) => Object.fromEntries(header!.map((name, i) => [name, record[i]!])));
}

/**
 * Renames rewrite no history: a charge keeps the key and project names it was charged under, in the JSON ledger and
 * both CSV exports, with today's name beside them once they differ; a rebuild from the events gives the same rows,
 * and so does the migration that added the names to entries projected before it.
 */
describe('the ledger keeps the names as charged', () => {
  let owner: Awaited<ReturnType<typeof setUpOrganization>>;
  let projectId: string;
  let keyId: string;
  let apiKey: string;

  const ledger = async () =>
    (await call(app.url, 'GET', `/orgs/${owner.orgId}/ledger?order=asc`, { token: owner.session })).body
      .entries as Entry[];
  const csv = async (format: 'audit' | 'finance') => {
    const response = await fetch(`${app.url}/orgs/${owner.orgId}/ledger?order=asc&format=${format}`, {
      headers: { authorization: `Bearer ${owner.session}`, accept: 'text/csv' },
    });
    expect(response.status).toBe(200);
    return rowsOf(await response.text());
  };
  const search = async (query: string) => {
    const response = await call(app.url, 'POST', '/search', { token: apiKey, body: { query } });
    expect(response.status).toBe(200);
    return response.body.request_id as string;
  };
  const ledgerOf = (count: number) =>
    eventually(`the ledger shows ${count} charges`, ledger, (entries) => entries.length === count);

  let before: { entries: Entry[]; audit: Table; finance: Table };
  let after: { entries: Entry[]; audit: Table; finance: Table };
  let firstRequest: string;
  let secondRequest: string;

  const app = useTestApp({}, 60_000);
  beforeAll(async () => {
    owner = await setUpOrganization(app, app.smtp, 'names@ledger.test');
    const project = await call(app.url, 'POST', `/orgs/${owner.orgId}/projects`, {
      token: owner.session,
      body: { name: 'Research' },
    });
    projectId = project.body.id as string;
    const key = await call(app.url, 'POST', `/orgs/${owner.orgId}/api-keys`, {
      token: owner.session,
      body: { name: 'Crawler', project_id: projectId },
    });
    keyId = key.body.id as string;
    apiKey = key.body.key as string;

    firstRequest = await search('before the renames');
    before = { entries: await ledgerOf(1), audit: await csv('audit'), finance: await csv('finance') };
    await rename(app, owner, `api-keys/${keyId}`, 'Crawler v2');
    await rename(app, owner, `projects/${projectId}`, 'Research & Development');
    secondRequest = await search('after the renames');
    after = { entries: await ledgerOf(2), audit: await csv('audit'), finance: await csv('finance') };
  }, 60_000);

  test('JSON: the earlier charge keeps its names, today’s beside them; the later one has the new names', () => {
    expect(before.entries).toEqual([
      expect.objectContaining({
        request_id: firstRequest,
        project_name: 'Research',
        project_name_now: null,
        key_name: 'Crawler',
        key_name_now: null,
      }),
    ]);
    expect(after.entries).toEqual([
      { ...before.entries[0], project_name_now: 'Research & Development', key_name_now: 'Crawler v2' },
      expect.objectContaining({
        request_id: secondRequest,
        project_name: 'Research & Development',
        project_name_now: null,
        key_name: 'Crawler v2',
        key_name_now: null,
      }),
    ]);
  });

  test('audit CSV: the earlier row is unchanged but for the current names beside the old ones', () => {
    expect(before.audit).toHaveLength(1);
    expect(before.audit[0]).toMatchObject({ project_name: 'Research', project_name_now: '', key_name: 'Crawler' });
    expect(after.audit).toHaveLength(2);
    expect(after.audit[0]).toEqual({
      ...before.audit[0],
      project_name_now: 'Research & Development',
      key_name_now: 'Crawler v2',
    });
    expect(after.audit[1]).toMatchObject({
      request_id: secondRequest,
      project_name: 'Research & Development',
      project_name_now: '',
      key_name: 'Crawler v2',
      key_name_now: '',
    });
  });

  test('finance CSV: the same, in its readable columns', () => {
    const charges = (table: Table) => table.filter((row) => row.Record === 'charge');
    expect(charges(before.finance)).toHaveLength(1);
    expect(charges(before.finance)[0]).toMatchObject({ Project: 'Research', 'Project now': '', Key: 'Crawler' });
    const [earlier, later] = charges(after.finance);
    expect(earlier).toEqual({
      ...charges(before.finance)[0],
      'Project now': 'Research & Development',
      'Key now': 'Crawler v2',
    });
    expect(later).toMatchObject({
      'Request id': secondRequest,
      Project: 'Research & Development',
      'Project now': '',
      Key: 'Crawler v2',
      'Key now': '',
    });
  });

  test('projections verify: a rebuild from the events gives the same names', async () => {
    const report = await verifyReadModels(app.app.get(Database), app.app.get<EventStore>(EVENT_STORE), {
      checkpointName: READ_MODELS_CHECKPOINT,
      projectors: READ_MODEL_PROJECTORS,
    });
    expect(report.differences).toEqual([]);
    expect(report.ok).toBe(true);
  });

  test('the migration gives entries projected before it the names as charged, from the events', async () => {
    const db = app.app.get(Database);
    // The read models as they were before migration 006: no names on the entries, no ledger_names (and none of the
    // later migrations that add to ledger_entries, so that its columns come back in their order).
    await db.query(
      `ALTER TABLE ledger_entries DROP COLUMN key_name, DROP COLUMN project_name, DROP COLUMN corrects_month,
         DROP COLUMN budget_leases`,
    );
    await db.query('DROP TABLE ledger_names, statements, ledger_adjustments');
    await db.query(
      `DELETE FROM schema_migrations WHERE migration_set = 'readModels'
         AND name IN ('006_ledger_names.sql', '009_statements.sql', '015_budget_leases.sql')`,
    );
    expect(await migrate(db.pool, app.schema, ['readModels'])).toEqual([
      'readModels/006_ledger_names.sql',
      'readModels/009_statements.sql',
      'readModels/015_budget_leases.sql',
    ]);
    expect(await ledger()).toEqual(after.entries);
    const report = await verifyReadModels(db, app.app.get<EventStore>(EVENT_STORE), {
      checkpointName: READ_MODELS_CHECKPOINT,
      projectors: READ_MODEL_PROJECTORS,
    });
    expect(report.differences).toEqual([]);
  });
});
