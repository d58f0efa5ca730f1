import { randomUUID } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '../test/support/test-database.js';
import { type From, type RecordedEvent, START } from '../src/event-store/event-store.port.js';
import type { CreditsCharged } from '../src/metering/events/credits-charged.event.js';
import { applyEvents } from './apply-batch.js';
import { READ_MODEL_PROJECTORS } from './read-models/index.js';

/** Deterministic pseudo-random numbers, so a failure reproduces. */
function prng(seed: number): () => number {
  let state = seed;
  return () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
}

/**
 * Charges as the projections meet them: several organizations, keys (one unknown to api_keys), environments and
 * operations, fractional credits, volume-priced units, a month boundary, repeated charge ids, events written before
 * `channel` and `pricing` existed, and other event types in between.
 */
function events(count: number, keys: readonly string[]): RecordedEvent[] {
  const random = prng(42);
  const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)]!;
  const orgs = [randomUUID(), randomUUID()];
  const projectId = randomUUID();
  const chargeIds: string[] = [];
  return Array.from({ length: count }, (_, i) => {
    const at = new Date(Date.UTC(2026, 10, 30, 23, 59) + Math.floor(random() * 120_000));
    const naming = namingEvent(i, keys, projectId, orgs[0]!);
    if (naming) {
      return {
        id: randomUUID(),
        streamId: 'names',
        revision: BigInt(i),
        position: { commit: BigInt(1000 + Math.floor(i / 3)), prepare: BigInt(i + 1) },
        ...naming,
        metadata: { schema_version: 1, occurred_at: at.toISOString(), actor: { type: 'operator', id: 'test' } },
        created: at,
      };
    }
    const units =
      random() < 0.3
        ? {
            price_class: pick(['extract:basic', 'map']),
            count: 1 + Math.floor(random() * 7),
            units_per_block: 5,
            credits_per_block: 1,
          }
        : null;
    const credits = pick([0, 1, 2, 0.2, 1 / 3, 0.00005, 2.5]);
    const chargeId = random() < 0.05 && chargeIds.length > 0 ? pick(chargeIds) : randomUUID();
    chargeIds.push(chargeId);
    const data: Partial<CreditsCharged['data']> = {
      charge_id: chargeId,
      org_id: pick(orgs),
      project_id: projectId,
      key_id: pick(keys),
      key_environment: pick(['live', 'test'] as const),
      operation: pick(['search', 'extract', 'map'] as const),
      depth: pick(['basic', 'advanced']),
      credits,
      request_id: `request-${i}`,
      idempotency_key: random() < 0.2 ? `key '"{},\\ ${i}` : null,
      billing_month: pick(['2026-11', '2026-12']),
      counts: { results: i },
      ...(random() < 0.1
        ? {}
        : {
            channel: 'rest' as const,
            pricing: {
              items: [{ item: 'search:basic', credits }, ...(units ? [{ item: units.price_class, credits: 0.2 }] : [])],
              units,
            },
          }),
    };
    return {
      id: randomUUID(),
      streamId: 'charges',
      revision: BigInt(i),
      position: { commit: BigInt(1000 + Math.floor(i / 3)), prepare: BigInt(i + 1) },
      type: random() < 0.05 ? 'SomethingElse' : 'CreditsCharged',
      data: data as Record<string, unknown>,
      metadata: { schema_version: 1, occurred_at: at.toISOString(), actor: { type: 'operator', id: 'test' } },
      created: at,
    };
  });
}

/**
 * Now and then a project or key is created or renamed between charges (the first two keys: the third stays unknown
 * to the ledger's names), so that the charges after it carry other names.
 */
function namingEvent(i: number, keys: readonly string[], projectId: string, orgId: string) {
  if (i % 40 === 7) {
    const data = { project_id: projectId, org_id: orgId, name: `project ${i}` };
    return { type: i < 40 ? 'ProjectCreated' : 'ProjectRenamed', data };
  }
  if (i % 40 !== 27) return undefined;
  const round = Math.floor(i / 40);
  const keyId = keys[round % 2]!;
  if (round >= 2) return { type: 'KeyRenamed', data: { key_id: keyId, org_id: orgId, name: `key ${i}` } };
  const created = { project_id: projectId, environment: 'live', prefix: 'p', key_hash: keyId, scopes: ['search'] };
  return {
    type: 'KeyCreated',
    data: { key_id: keyId, org_id: orgId, name: `key ${i}`, ...created, depth_limit: null },
  };
}

const TABLES: Record<string, string> = {
  monthly_totals: 'org_id, month, environment',
  usage_daily: 'org_id, day, project_id, key_id, operation, environment',
  monthly_units: 'org_id, month, environment, price_class',
  ledger_entries: 'commit_position, prepare_position',
  ledger_names: 'kind, id',
  api_keys: 'key_id',
};

describe('applyEvents in runs (applyMany)', () => {
  const databases: TestDatabase[] = [];
  afterAll(async () => {
    for (const database of databases) await database.drop();
  });

  /** Projects `all` in batches of `batchSize` into a fresh schema and returns the rows of every usage table. */
  async function project(all: readonly RecordedEvent[], keys: readonly string[], batchSize: number) {
    const database = await createTestDatabase(['readModels']);
    databases.push(database);
    for (const [i, keyId] of keys.slice(0, -1).entries()) {
      await database.db.query(
        `INSERT INTO api_keys (key_id, org_id, project_id, name, environment, prefix, key_hash, scopes, status,
           created_by, created_at, updated_at, last_used_at)
         VALUES ($1::uuid, $1::uuid, $1::uuid, 'k', 'live', 'p', $1::text, '{search}', 'active', 'test', now(), now(), $2)`,
        [keyId, i === 0 ? '2027-01-01T00:00:00Z' : null],
      );
    }
    let position: From = START;
    for (let start = 0; start < all.length; start += batchSize) {
      position = await database.db.transaction((client) =>
        applyEvents(client, READ_MODEL_PROJECTORS, position, all.slice(start, start + batchSize)),
      );
    }
    const rows: Record<string, unknown[]> = {};
    for (const [table, order] of Object.entries(TABLES)) {
      const columns = table === 'api_keys' ? 'key_id, last_used_at' : '*';
      rows[table] = (await database.db.query(`SELECT ${columns} FROM ${table} ORDER BY ${order}`)).rows;
    }
    return { rows, position };
  }

  it('leaves the rows that applying the events one by one leaves', async () => {
    const keys = [randomUUID(), randomUUID(), randomUUID()];
    const all = events(600, keys);
    const oneByOne = await project(all, keys, 1);
    expect(oneByOne.rows.ledger_entries!.length).toBeGreaterThan(500);
    const named = (oneByOne.rows.ledger_entries as { key_name: string | null; project_name: string | null }[]).filter(
      (entry) => entry.key_name !== null,
    );
    expect(new Set(named.map((entry) => entry.key_name)).size).toBeGreaterThan(5);
    expect(
      new Set(oneByOne.rows.ledger_entries!.map((entry) => (entry as { project_name: string }).project_name)).size,
    ).toBeGreaterThan(5);
    for (const batchSize of [500, 37]) {
      const batched = await project(all, keys, batchSize);
      expect(batched.rows).toEqual(oneByOne.rows);
      expect(batched.position).toEqual(oneByOne.position);
    }
  });
});
