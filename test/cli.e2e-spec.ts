import { randomUUID } from 'node:crypto';
import { ProjectionRunner } from '../projections/projection-runner.js';
import { READ_MODEL_PROJECTORS, READ_MODELS_CHECKPOINT } from '../projections/read-models/index.js';
import { toNewEvent } from '../src/event-store/domain-event.js';
import { PostgresEventStore } from '../src/event-store/postgres/postgres-event-store.js';
import { type CreditsCharged, chargesStream } from '../src/metering/events/credits-charged.event.js';
import { operatorCli } from './support/operator-cli.js';
import { TEST_DATABASE_URL, type TestDatabase, createTestDatabase } from './support/test-database.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('operator CLI', () => {
  let database: TestDatabase;
  let env: NodeJS.ProcessEnv;
  const cli = (...argv: string[]) => operatorCli(env, ...argv);

  beforeAll(async () => {
    database = await createTestDatabase();
    env = { DATABASE_URL: TEST_DATABASE_URL, DATABASE_SCHEMA: database.schema, LOG_LEVEL: 'error' };
  });
  afterAll(async () => {
    await database.drop();
  });

  const createOrg = async (...flags: string[]) => {
    const result = await cli('org', 'create', '--json', ...flags);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    return JSON.parse(result.stdout) as {
      id: string;
      monthly_credit_allowance: number;
      default_project: { id: string; name: string };
    };
  };
  const createProject = async (orgId: string) => {
    const result = await cli('project', 'create', orgId, '--name', 'Web');
    expect(result.code).toBe(0);
    return result.stdout.trim();
  };

  test('help, no arguments and --help print the usage and exit 0', async () => {
    const cases: [string[], RegExp][] = [
      [[], /projections verify/],
      [['help'], /key create <org_id>/],
      [['--help'], /org plan <org_id>/],
      [['help', 'key'], /key revoke <org_id> <key_id>/],
      [['org', '--help'], /org list/],
      [['key', 'create', '--help'], /^usage: .*key create <org_id> --project/],
    ];
    for (const [argv, usage] of cases) {
      const result = await cli(...argv);
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(usage);
      expect(result.stderr).toBe('');
    }
  });

  test('a bad command line exits 2 with a message, before any connection is made', async () => {
    const unreachable = { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' };
    const cases: [string[], RegExp][] = [
      [['frobnicate'], /unknown command "frobnicate"/],
      [['org'], /missing subcommand/],
      [['org', 'delete'], /unknown command "org delete"/],
      [['org', 'create', '--name', 'X', '--colour', 'red'], /Unknown option '--colour'/],
      [['org', 'create'], /--name is required/],
      [['org', 'create', '--name', 'X', '--plan', 'gold'], /unknown plan "gold".*free, project, bootstrap/],
      [['org', 'create', '--name', 'X', '--allowance', '12.5'], /--allowance must be an integer >= 0, got "12.5"/],
      [['org', 'create', '--name', 'X', '--allowance', '-3'], /--allowance/],
      [['org', 'create', '--name', 'X', '--rpm-live', '0'], /--rpm-live must be an integer >= 1/],
      [['org', 'create', '--name', 'X', '--owner', 'not-an-email'], /--owner must be an e-mail address/],
      [['org', 'plan', randomUUID()], /--plan is required/],
      [['org', 'plan', 'acme', '--plan', 'free'], /org_id must be a UUID/],
      [['key', 'create', randomUUID(), '--name', 'k'], /--project is required/],
      [['key', 'create', randomUUID(), '--project', randomUUID(), '--name', 'k', '--scopes', 'search,fly'], /scope/],
      [['key', 'create', randomUUID(), '--project', randomUUID(), '--name', 'k', '--env', 'prod'], /environment/],
      [['key', 'revoke', randomUUID()], /missing <key_id>/],
      [['project', 'list', randomUUID(), 'extra'], /unexpected argument "extra"/],
    ];
    for (const [argv, message] of cases) {
      const result = await operatorCli(unreachable, ...argv);
      expect({ argv, code: result.code }).toEqual({ argv, code: 2 });
      expect(result.stderr).toMatch(message);
      expect(result.stdout).toBe('');
    }
  });

  test('invalid configuration exits 2; an unreachable database exits 1 with the cause', async () => {
    const config = await operatorCli({ DATABASE_URL: 'mysql://x' }, 'org', 'list');
    expect(config.code).toBe(2);
    expect(config.stderr).toMatch(/DATABASE_URL must be a postgres:\/\/ URL/);
    const down = await operatorCli({ DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' }, 'org', 'list');
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/ECONNREFUSED/);
  });

  test('org create, list and plan go through the command handlers and the read models', async () => {
    const created = await cli('org', 'create', '--name', 'Acme', '--plan', 'startup', '--owner', 'Ops@Example.com');
    expect(created.code).toBe(0);
    const orgId = created.stdout.trim();
    expect(orgId).toMatch(UUID);

    const custom = await createOrg('--name', 'Custom', '--allowance', '5000', '--rpm-live', '42', '--rpm-test', '7');
    expect(custom.monthly_credit_allowance).toBe(5000);

    const listed = await cli('org', 'list', '--json');
    expect(listed.code).toBe(0);
    const orgs = JSON.parse(listed.stdout) as { id: string; members: number }[];
    expect(orgs.find((o) => o.id === orgId)).toMatchObject({
      name: 'Acme',
      plan: 'startup',
      monthly_credit_allowance: 38_000,
      rate_limit_per_minute: { live: 1000, test: 100 },
      members: 1,
    });
    expect(orgs.find((o) => o.id === custom.id)).toMatchObject({
      plan: 'free',
      monthly_credit_allowance: 5000,
      rate_limit_per_minute: { live: 42, test: 7 },
      members: 0,
    });

    const changed = await cli('org', 'plan', orgId, '--plan', 'growth', '--allowance', '250000');
    expect(changed.code).toBe(0);
    expect(changed.stdout).toMatch(/plan growth, 250000 credits/);

    const { rows: events } = await database.db.query<{ event_type: string; data: never; metadata: never }>(
      'SELECT event_type, data, metadata FROM events WHERE stream_id = $1 ORDER BY stream_revision',
      [`organization-${orgId}`],
    );
    expect(events.map((e) => e.event_type)).toEqual(['OrganizationCreated', 'MemberAdded', 'PlanChanged']);
    expect(events[2]!.data).toMatchObject({
      org_id: orgId,
      plan: 'growth',
      monthly_credit_allowance: 250_000,
      rate_limit_per_minute: { live: 1000, test: 100 },
    });
    expect(events[2]!.metadata).toMatchObject({ actor: { type: 'operator' } });
    expect(events[1]!.data).toMatchObject({ email: 'ops@example.com', role: 'owner' });

    const table = await cli('org', 'list');
    expect(table.stdout).toMatch(/^ID\s+NAME\s+PLAN\s+ALLOWANCE\s+RPM LIVE\s+RPM TEST\s+MEMBERS$/m);
    expect(table.stdout).toMatch(new RegExp(`^${orgId}\\s+Acme\\s+growth\\s+250000\\s+1000\\s+100\\s+1$`, 'm'));
  });

  test('a command the domain refuses exits 1 with its message', async () => {
    const missingOrg = await cli('org', 'plan', randomUUID(), '--plan', 'free');
    expect(missingOrg).toMatchObject({ code: 1, stderr: expect.stringMatching(/organization not found/) });
    const org = await createOrg('--name', 'Refusals');
    const missingProject = await cli('key', 'create', org.id, '--project', randomUUID(), '--name', 'k');
    expect(missingProject).toMatchObject({ code: 1, stderr: expect.stringMatching(/project not found/) });
    const missingKey = await cli('key', 'revoke', org.id, randomUUID());
    expect(missingKey).toMatchObject({ code: 1, stderr: expect.stringMatching(/API key not found/) });
  });

  test('projects and keys: the plaintext is printed once, listings never show it or its hash', async () => {
    const org = await createOrg('--name', 'Keys Inc');
    const projectId = await createProject(org.id);
    expect(projectId).toMatch(UUID);
    const projects = JSON.parse((await cli('project', 'list', org.id, '--json')).stdout) as { id: string }[];
    // Every organization is created with a project of its own, "Default" (ProjectCreated, as any project).
    expect(org.default_project.name).toBe('Default');
    expect(projects.map((p) => p.id)).toEqual([org.default_project.id, projectId]);
    expect((await cli('project', 'list')).stdout).toContain(projectId);

    const renamed = await cli('project', 'rename', org.id, projectId, '--name', 'Storefront', '--json');
    expect(renamed).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(renamed.stdout)).toEqual({ id: projectId, org_id: org.id, name: 'Storefront' });
    const listed = JSON.parse((await cli('project', 'list', org.id, '--json')).stdout) as { name: string }[];
    expect(listed.map((p) => p.name)).toEqual(['Default', 'Storefront']);
    expect(await cli('project', 'rename', org.id, projectId, '--name', 'Storefront')).toMatchObject({ code: 0 });
    const elsewhere = await cli('project', 'rename', (await createOrg('--name', 'Other')).id, projectId, '--name', 'X');
    expect(elsewhere).toMatchObject({ code: 1, stderr: expect.stringMatching(/project not found/) });

    const created = await cli(
      'key',
      'create',
      org.id,
      '--project',
      projectId,
      '--name',
      'CI',
      '--env',
      'test',
      '--scopes',
      'search,extract',
      '--depth-limit',
      'basic',
    );
    expect(created.code).toBe(0);
    const plaintext = created.stdout.trim();
    expect(plaintext).toMatch(/^sk_test_[0-9A-Za-z]{32}$/);
    expect(created.stderr).toMatch(/only time the full key is shown/);

    const { rows } = await database.db.query<{ key_id: string; key_hash: string; prefix: string }>(
      'SELECT key_id, key_hash, prefix FROM api_keys WHERE org_id = $1',
      [org.id],
    );
    expect(rows).toHaveLength(1);
    const { key_id: keyId, key_hash: keyHash, prefix } = rows[0]!;
    expect(plaintext.startsWith(prefix)).toBe(true);

    for (const argv of [
      ['key', 'list', org.id],
      ['key', 'list', org.id, '--json'],
    ]) {
      const listed = await cli(...argv);
      expect(listed.code).toBe(0);
      expect(listed.stdout).toContain(prefix);
      expect(listed.stdout).toContain(keyId);
      expect(listed.stdout).not.toContain(plaintext);
      expect(listed.stdout).not.toContain(keyHash);
    }
    const [view] = JSON.parse((await cli('key', 'list', org.id, '--json')).stdout) as Record<string, unknown>[];
    expect(view).toMatchObject({ environment: 'test', scopes: ['search', 'extract'], depth_limit: 'basic' });
    expect(Object.keys(view!)).not.toContain('key_hash');

    const revoked = await cli('key', 'revoke', org.id, keyId);
    expect(revoked).toMatchObject({ code: 0, stdout: `revoked ${keyId}\n` });
    expect((await cli('key', 'revoke', org.id, keyId)).stdout).toMatch(/already revoked/);
    const after = JSON.parse((await cli('key', 'list', org.id, '--json')).stdout) as { status: string }[];
    expect(after.map((k) => k.status)).toEqual(['revoked']);

    const json = await cli('key', 'create', org.id, '--project', projectId, '--name', 'Live', '--json');
    const body = JSON.parse(json.stdout) as { id: string; key: string; prefix: string; scopes: string[] };
    expect(body.key).toMatch(/^sk_live_/);
    expect(body.scopes).toEqual(['search', 'verticals', 'extract', 'map', 'crawl', 'mcp', 'research']);
    expect(json.stdout).not.toContain('key_hash');
  });

  test('key budget and project budget: the same events as the API writes, listed with the key and project', async () => {
    const org = await createOrg('--name', 'Budgets Inc');
    const projectId = await createProject(org.id);
    const created = await cli('key', 'create', org.id, '--project', projectId, '--name', 'Agent', '--json');
    const keyId = (JSON.parse(created.stdout) as { id: string }).id;
    expect(await cli('key', 'budget', org.id, keyId, '--credits', '500')).toMatchObject({
      code: 0,
      stdout: `${keyId}: monthly credit limit 500\n`,
    });
    expect(await cli('project', 'budget', org.id, projectId, '--credits', '2000')).toMatchObject({ code: 0 });
    const limits = async () =>
      database.db.query<{ key_limit: string | null; project_limit: string | null }>(
        `SELECT k.monthly_credit_limit AS key_limit, p.monthly_credit_limit AS project_limit
         FROM api_keys k JOIN projects p USING (project_id) WHERE k.key_id = $1`,
        [keyId],
      );
    expect((await limits()).rows[0]).toEqual({ key_limit: '500', project_limit: '2000' });
    expect(await cli('key', 'budget', org.id, keyId, '--credits', 'none')).toMatchObject({ code: 0 });
    expect((await limits()).rows[0]).toEqual({ key_limit: null, project_limit: '2000' });
    const bad = await cli('key', 'budget', org.id, keyId, '--credits', '1.5');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--credits must be none or a whole number/);
  });

  test('alert thresholds: the same event as the API writes; alert list reads the crossings', async () => {
    const org = await createOrg('--name', 'Alerts Inc');
    const projectId = await createProject(org.id);
    expect(await cli('alert', 'thresholds', org.id, '--scope', 'organization', '--percent', '90,75')).toMatchObject({
      code: 0,
      stdout: `organization ${org.id}: alert thresholds 75%, 90%\n`,
    });
    expect(
      await cli('alert', 'thresholds', org.id, '--scope', 'project', '--id', projectId, '--percent', 'none'),
    ).toMatchObject({ code: 0 });
    const { rows } = await database.db.query<{ scope: string; thresholds: number[] }>(
      'SELECT scope, thresholds FROM alert_thresholds WHERE org_id = $1 ORDER BY scope',
      [org.id],
    );
    expect(rows).toEqual([
      { scope: 'organization', thresholds: [75, 90] },
      { scope: 'project', thresholds: [] },
    ]);
    const foreign = await cli('alert', 'thresholds', org.id, '--scope', 'key', '--id', randomUUID(), '--percent', '50');
    expect(foreign.code).not.toBe(0);
    expect(foreign.stderr).toMatch(/key not found/);
    for (const percent of ['0', '50,50', 'x']) {
      const bad = await cli('alert', 'thresholds', org.id, '--scope', 'organization', '--percent', percent);
      expect(bad.code).toBe(2);
    }
    expect(await cli('alert', 'list', org.id)).toMatchObject({ code: 0, stdout: 'no alerts\n' });
  });

  test('projections verify and rebuild: a tampered read model is found, named and repaired', async () => {
    const org = await createOrg('--name', 'Ledger');
    const projectId = await createProject(org.id);
    await cli('key', 'create', org.id, '--project', projectId, '--name', 'Prod');
    const { rows } = await database.db.query<{ key_id: string }>('SELECT key_id FROM api_keys WHERE org_id = $1', [
      org.id,
    ]);
    const keyId = rows[0]!.key_id;

    // A charge appended by another process (the metering pipeline), then projected by the next CLI read.
    const store = await PostgresEventStore.create(database.db);
    const charge: CreditsCharged = {
      type: 'CreditsCharged',
      data: {
        charge_id: randomUUID(),
        org_id: org.id,
        project_id: projectId,
        key_id: keyId,
        key_environment: 'live',
        operation: 'search',
        depth: 'basic',
        credits: 2,
        request_id: randomUUID(),
        idempotency_key: null,
        billing_month: '2026-11',
        counts: { results: 5 },
        channel: 'rest',
        pricing: { items: [{ item: 'search:advanced', credits: 2 }], units: null },
      },
    };
    await store.appendToStream(
      chargesStream(org.id, '2026-11'),
      [toNewEvent(charge, { type: 'api_key', id: keyId })],
      'any',
    );
    await store.close();
    expect((await cli('org', 'list')).code).toBe(0);
    const totals = () =>
      database.db.query<{ credits: string }>('SELECT credits FROM monthly_totals WHERE org_id = $1', [org.id]);
    expect((await totals()).rows.map((r) => Number(r.credits))).toEqual([2]);

    const healthy = await cli('projections', 'verify');
    expect(healthy.code).toBe(0);
    expect(healthy.stdout).toMatch(/^read models match the events \(\d+ events\)\n$/);

    await database.db.query(`UPDATE api_keys SET name = 'tampered' WHERE key_id = $1`, [keyId]);
    await database.db.query('UPDATE monthly_totals SET credits = credits + 1 WHERE org_id = $1', [org.id]);
    const broken = await cli('projections', 'verify');
    expect(broken.code).toBe(1);
    expect(broken.stdout).toMatch(/api_keys: 1 row\(s\) only in the live table, 1 only in the rebuild/);
    expect(broken.stdout).toMatch(/monthly_totals: 1 row\(s\) only in the live table, 1 only in the rebuild/);
    expect(broken.stdout).toContain('"name":"tampered"');
    expect(broken.stdout).not.toMatch(/usage_daily|organizations:/);

    const report = JSON.parse((await cli('projections', 'verify', '--json')).stdout) as {
      ok: boolean;
      differences: { table: string }[];
    };
    expect(report.ok).toBe(false);
    expect(report.differences.map((d) => d.table).sort()).toEqual(['api_keys', 'monthly_totals']);

    const rebuilt = await cli('projections', 'rebuild');
    expect(rebuilt.code).toBe(0);
    expect(rebuilt.stdout).toMatch(/^rebuilt \d+ read-model tables from \d+ events in [\d.]+ s\n$/);
    expect((await totals()).rows.map((r) => Number(r.credits))).toEqual([2]);

    const repaired = await cli('projections', 'verify');
    expect(repaired.code).toBe(0);
    expect(repaired.stdout).toMatch(/read models match the events/);
  });

  test('while another process leads the projection, writes wait for it and reads say when they lag', async () => {
    // A "server": the projector of another process, which holds the leadership lock.
    const store = await PostgresEventStore.create(database.db, { pollIntervalMs: 20 });
    let projectedByServer = 0;
    const server = new ProjectionRunner(database.db, store, {
      checkpointName: READ_MODELS_CHECKPOINT,
      projectors: READ_MODEL_PROJECTORS,
      leaderRetryMs: 20,
      onBatch: (applied) => (projectedByServer += applied),
    });
    server.start();
    try {
      for (let i = 0; !server.isLeader && i < 200; i++) await new Promise((r) => setTimeout(r, 10));
      expect(server.isLeader).toBe(true);
      const org = await createOrg('--name', 'Led');
      // The CLI could not take the lock: the server projected the event, and the CLI waited for it.
      expect(projectedByServer).toBeGreaterThan(0);
      const { rowCount } = await database.db.query('SELECT 1 FROM organizations WHERE org_id = $1', [org.id]);
      expect(rowCount).toBe(1);
    } finally {
      await server.stop();
      await store.close();
    }

    // A leader that does not project (stuck): the write is still recorded, with a note; reads warn of the lag.
    const lock = await database.db.pool.connect();
    try {
      await lock.query('SELECT pg_advisory_lock(hashtext($1))', [`projection:${database.schema}:read_models`]);
      const stuckEnv = { ...env, PROJECTION_WAIT_TIMEOUT_MS: '200' };
      const created = await operatorCli(stuckEnv, 'org', 'create', '--name', 'Stuck');
      expect(created.code).toBe(0);
      expect(created.stderr).toMatch(/recorded, but the read models do not show it yet/);
      const listed = await operatorCli(stuckEnv, 'org', 'list');
      expect(listed.code).toBe(0);
      expect(listed.stderr).toMatch(/read models are behind the event store/);
      expect(listed.stdout).not.toContain('Stuck');
    } finally {
      await lock.query('SELECT pg_advisory_unlock_all()');
      lock.release();
    }
    // Once nobody leads, the next read catches up by itself.
    const listed = await cli('org', 'list');
    expect(listed.stderr).toBe('');
    expect(listed.stdout).toContain('Stuck');
  });
});
