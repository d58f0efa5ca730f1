import { randomUUID } from 'node:crypto';
// node-redis's own CRC16 slot function (a CommonJS module without an ES default: its exports are the default here).
import calculateSlotModule from '@redis/client/dist/lib/utils/calculate-slot.js';
import { keyBesides } from '../redis/hash-tags.js';
import type { RedisKeyspace } from '../redis/redis-keyspace.js';
import { counterKeys } from './counter-keys.js';

const cluster: RedisKeyspace = { prefix: 'sla:', cluster: true };
const single: RedisKeyspace = { prefix: 'sla:', cluster: false };
const slotOf = (key: string) => calculateSlotModule.default(key);
const slotsOf = (keys: readonly string[]) => new Set(keys.map(slotOf));

/** The keys each script is given for one organization's call, as the services build them (see the scripts' KEYS). */
function scriptKeySets(space: RedisKeyspace, org: string) {
  const [keyId, projectId, month, node] = [randomUUID(), randomUUID(), '2031-06', randomUUID()];
  const nodeJournal = `${space.prefix}inflight:${node}`;
  const deferredJournal = `${space.prefix}deferred-reservations`;
  const counters = [
    counterKeys.quota(space, org, month),
    counterKeys.keySpend(space, org, keyId, month),
    counterKeys.projectSpend(space, org, projectId, month),
    counterKeys.units(space, org, month, 'live', 'crawl'),
  ];
  const leases = [
    [counterKeys.quota(space, org, month), counterKeys.leases(space, org, month)],
    [
      counterKeys.keySpend(space, org, keyId, month),
      counterKeys.leases(space, org, month, { scope: 'key', id: keyId }),
    ],
    [
      counterKeys.projectSpend(space, org, projectId, month),
      counterKeys.leases(space, org, month, { scope: 'project', id: projectId }),
    ],
  ] as const;
  const receipt = (leasesKey: string) => keyBesides(counterKeys.leaseReceipt(space, randomUUID()), leasesKey);
  return {
    // RESERVE, ADJUST (a counter and its journal), SEED and ADD_TO_SEEDED (a counter and its seed record).
    counters: counters.flatMap((counter) => [
      [counter, keyBesides(nodeJournal, counter)],
      [counter, keyBesides(deferredJournal, counter)],
      [counter, `${counter}:seed`],
    ]),
    // GRANT (counter, leases, journal); RELEASE_LEASE (journal, leases, counter).
    grants: leases.map(([counter, leasesKey]) => [counter, leasesKey, keyBesides(nodeJournal, leasesKey)]),
    // APPLY: the batch's receipt, receipts answered since, then each step's keys (s: leases, counter; g, r: leases,
    // journal), every step of a batch on the leases of one hash tag (LeaseStepsBySlot).
    applies: [
      leases.flatMap(([counter, leasesKey]) => [
        receipt(leasesKey),
        receipt(leasesKey),
        leasesKey,
        counter,
        leasesKey,
        keyBesides(nodeJournal, leasesKey),
      ]),
    ],
  };
}

describe('the keys of every script on a Redis Cluster', () => {
  test.each(['0b9d5c1e-7f1a-4c55-9a4e-2f2a1d6c7b10', randomUUID(), randomUUID()])(
    "hash to one slot per organization's script (org %s)",
    (org) => {
      const { counters, grants, applies } = scriptKeySets(cluster, org);
      for (const keys of [...counters, ...grants, ...applies]) expect(slotsOf(keys).size).toBe(1);
      // ... and that slot is the organization's.
      expect(slotOf(counters[0]![0]!)).toBe(slotOf(`{${org}}`));
    },
  );

  test('organizations are spread over the slots, not all in one', () => {
    const orgs = Array.from({ length: 20 }, () => randomUUID());
    const slots = new Set(orgs.map((org) => slotOf(counterKeys.quota(cluster, org, '2031-06'))));
    expect(slots.size).toBeGreaterThan(10);
  });

  test('on one server the names are the ones running deployments have (no hash tag)', () => {
    const org = '0b9d5c1e-7f1a-4c55-9a4e-2f2a1d6c7b10';
    expect(counterKeys.quota(single, org, '2031-06')).toBe(`sla:quota:${org}:2031-06`);
    expect(counterKeys.keySpend(single, org, 'k1', '2031-06')).toBe('sla:spend:key:k1:2031-06');
    expect(counterKeys.projectSpend(single, org, 'p1', '2031-06')).toBe('sla:spend:project:p1:2031-06');
    expect(counterKeys.leases(single, org, '2031-06', { scope: 'key', id: 'k1' })).toBe(
      `sla:leases:${org}:2031-06:key:k1`,
    );
    expect(counterKeys.units(single, org, '2031-06', 'live', 'crawl')).toBe(`sla:units:${org}:2031-06:live:crawl`);
    expect(keyBesides('sla:inflight:n1', counterKeys.quota(single, org, '2031-06'))).toBe('sla:inflight:n1');
    expect(keyBesides('sla:lease-receipt:b1', counterKeys.leases(single, org, '2031-06'))).toBe('sla:lease-receipt:b1');
  });

  test('the CRC16 agrees with the reference values of the Redis Cluster specification', () => {
    expect(slotOf('123456789')).toBe(0x31c3 % 16384);
    expect(slotOf('{user1000}.following')).toBe(slotOf('{user1000}.followers'));
    // An empty first tag: the whole key is hashed, not `bar`.
    expect(slotOf('foo{}{bar}')).not.toBe(slotOf('bar'));
  });
});
