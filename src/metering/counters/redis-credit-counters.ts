import { randomUUID } from 'node:crypto';
import { type From, type Position, START, comparePositions } from '../../event-store/event-store.port.js';
import type { RedisClient } from '../../redis/redis.module.js';
import {
  COUNTER_TTL_SECONDS,
  type CounterJournal,
  type CreditCounters,
  type Reservation,
  type Seed,
  type SettledChange,
  journalField,
  seedValueOf,
} from './credit-counters.js';
import { runScript } from '../../redis/run-script.js';
import { keyBesides } from '../../redis/hash-tags.js';

// Each script runs atomically in Redis. A missing counter answers -1 ("seed me") instead of starting from zero.
// With a journal (KEYS[2], field ARGV[3] or ARGV[2]) the change is noted there in the same step; a field back at
// zero is removed.
const RESERVE = `
local v = redis.call('GET', KEYS[1])
if not v then return {-1, 0} end
v = tonumber(v)
if v + tonumber(ARGV[1]) > tonumber(ARGV[2]) then return {0, v} end
local n = redis.call('INCRBY', KEYS[1], ARGV[1])
if KEYS[2] then redis.call('HINCRBY', KEYS[2], ARGV[3], ARGV[1]) end
return {1, n}`;

// A change to what the call holds already (ARGV[3] is not 'new') needs its journal entry: without it, Redis lost the
// counter with the entry, and the counter seeded again never held the call's change (-2, leave it alone).
const ADJUST = `
if redis.call('EXISTS', KEYS[1]) == 0 then return {-1, 0} end
if KEYS[2] and ARGV[3] ~= 'new' and redis.call('HEXISTS', KEYS[2], ARGV[2]) == 0 then
  return {-2, tonumber(redis.call('GET', KEYS[1]))}
end
local n = redis.call('INCRBY', KEYS[1], ARGV[1])
if KEYS[2] and redis.call('HINCRBY', KEYS[2], ARGV[2], ARGV[1]) == 0 then redis.call('HDEL', KEYS[2], ARGV[2]) end
return {1, n}`;

/**
 * A counter and its seed record (KEYS[1], KEYS[2]) set together if the counter is missing: of several nodes seeding
 * at once, the first one wins. The record, "<seeding id> <position>", names the store position the value includes.
 */
const SEED = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[3])
redis.call('SET', KEYS[2], ARGV[2], 'EX', ARGV[3])
return 1`;

/** Removes each journal field (ARGV) of KEYS[1]; 1 where it was there, 0 where it was not. */
const SETTLE = `
local removed = {}
for i, field in ipairs(ARGV) do removed[i] = redis.call('HDEL', KEYS[1], field) end
return removed`;

/** Adds ARGV[2] to the counter KEYS[1] only while its seed record KEYS[2] is still ARGV[1] (not seeded again since). */
const ADD_TO_SEEDED = `
if redis.call('GET', KEYS[2]) ~= ARGV[1] then return 0 end
redis.call('INCRBY', KEYS[1], ARGV[2])
return 1`;

const seedRecordKey = (key: string) => `${key}:seed`;
const formatCovers = (covers: From | null) =>
  covers === null ? '?' : covers === START ? 'start' : `${covers.commit}/${covers.prepare}`;

/** The position a seed record covers; null when unknown (no record, a seed without a position). */
function coversOf(record: string | null): From | null {
  const covers = record?.split(' ')[1];
  if (covers === 'start') return START;
  const match = /^(\d+)\/(\d+)$/.exec(covers ?? '');
  return match ? { commit: BigInt(match[1]!), prepare: BigInt(match[2]!) } : null;
}

// On a cluster the journal of a change is the one in the counter's slot (keyBesides); on one server, journal.key.
const journalKeys = (key: string, journal: CounterJournal | null | undefined) =>
  journal ? [key, keyBesides(journal.key, key)] : [key];
const journalArgs = (key: string, journal: CounterJournal | null | undefined) =>
  journal ? [journalField(journal.call, key)] : [];

/** Counters shared by every node. */
export class RedisCreditCounters implements CreditCounters {
  constructor(private readonly redis: RedisClient) {}

  async reserve(
    key: string,
    amount: number,
    limit: number,
    seed: Seed,
    journal?: CounterJournal | null,
  ): Promise<Reservation> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const [status, value] = (await runScript(this.redis, RESERVE, {
        keys: journalKeys(key, journal),
        arguments: [String(amount), String(limit), ...journalArgs(key, journal)],
      })) as [number, number];
      if (status === 1) return { ok: true, used: value };
      if (status === 0) return { ok: false, used: value };
      await this.seed(key, seed);
    }
    throw new Error(`counter ${key} could not be seeded`);
  }

  async adjust(key: string, delta: number, journal?: CounterJournal | null): Promise<number | null> {
    const [status, value] = (await runScript(this.redis, ADJUST, {
      keys: journalKeys(key, journal),
      arguments: [String(delta), ...journalArgs(key, journal)],
    })) as [number, number];
    return status === 1 ? value : null;
  }

  async read(key: string, seed: Seed): Promise<number> {
    const value = await this.redis.get(key);
    if (value !== null) return Number(value);
    await this.seed(key, seed);
    return Number((await this.redis.get(key)) ?? 0);
  }

  async increment(key: string, amount: number, seed: Seed, journal?: CounterJournal | null): Promise<number> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const [status, value] = (await runScript(this.redis, ADJUST, {
        keys: journalKeys(key, journal),
        arguments: [String(amount), ...journalArgs(key, journal), ...(journal ? ['new'] : [])],
      })) as [number, number];
      if (status === 1) return value;
      await this.seed(key, seed);
    }
    throw new Error(`counter ${key} could not be seeded`);
  }

  async settle(
    journal: CounterJournal | null,
    changes: readonly SettledChange[],
    chargedAt: () => Promise<Position | null>,
  ): Promise<void> {
    if (!journal || changes.length === 0) return;
    const byJournal = new Map<string, SettledChange[]>();
    for (const change of changes) {
      const journalKey = keyBesides(journal.key, change.key);
      byJournal.set(journalKey, [...(byJournal.get(journalKey) ?? []), change]);
    }
    for (const [journalKey, settled] of byJournal) {
      const removed = (await runScript(this.redis, SETTLE, {
        keys: [journalKey],
        arguments: settled.map((change) => journalField(journal.call, change.key)),
      })) as number[];
      // A missing entry: Redis lost the counter with it (its value was not left at zero by the call itself).
      const lost = settled.filter((change, i) => removed[i] !== 1 && change.amount !== 0);
      for (const change of lost) await this.countLostChange(change, chargedAt);
    }
  }

  /**
   * The counter seeded again after Redis lost a call's change: it includes the call's charge if its seed covers the
   * charge's position; otherwise the charge is added to it (to that seeding only, should it be lost again meanwhile).
   */
  private async countLostChange(change: SettledChange, chargedAt: () => Promise<Position | null>): Promise<void> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const [value, record] = await this.redis.mGet([change.key, seedRecordKey(change.key)]);
      if (value === null || value === undefined) {
        await this.seed(change.key, change.seed);
        continue;
      }
      const covers = coversOf(record ?? null);
      if (covers === null) return; // seeded without a position (before seed records): trusted to include it
      const position = await chargedAt();
      if (position === null) throw new Error(`the charge of ${change.key} is not in the ledger yet`);
      if (covers !== START && comparePositions(position, covers) <= 0) return;
      const added = await runScript(this.redis, ADD_TO_SEEDED, {
        keys: [change.key, seedRecordKey(change.key)],
        arguments: [record!, String(change.amount)],
      });
      if (added === 1) return;
    }
    throw new Error(`counter ${change.key} kept being seeded again`);
  }

  /** The counter and its seed record, only if the counter is missing (see SEED). */
  private async seed(key: string, seed: Seed): Promise<void> {
    const { value, covers } = seedValueOf(await seed());
    await runScript(this.redis, SEED, {
      keys: [key, seedRecordKey(key)],
      arguments: [String(Math.round(value)), `${randomUUID()} ${formatCovers(covers)}`, String(COUNTER_TTL_SECONDS)],
    });
  }
}
