import { performance } from 'node:perf_hooks';
import type { HttpAdapterHost } from '@nestjs/core';
import { Registry } from 'prom-client';
import type { AppConfig } from '../../config/app-config.js';
import type { SearchProvider } from '../providers/search-provider.port.js';
import { SearchAdmission } from './search-admission.js';

const engine = { name: 'searxng' } as SearchProvider;
const localIndex = { name: 'local' } as SearchProvider;

describe('SearchAdmission: how answers move the bound', () => {
  const admission = (registry = new Registry(), maxInFlight = 8, providers = [localIndex, engine]) =>
    new SearchAdmission(
      {} as HttpAdapterHost,
      { searchMaxInFlight: maxInFlight, extractThreads: 1 } as AppConfig,
      registry,
      providers,
    );

  /** One search admitted and answered (200) `ms` after it arrived. */
  const answer = (subject: SearchAdmission, ms: number, depth = 'basic') =>
    subject.admit()!({ status: 200, arrivedAt: performance.now() - ms, depth });

  /** Holds `count` searches that are never answered (the node's other work). */
  const hold = (subject: SearchAdmission, count: number) => {
    for (let i = 0; i < count; i++) expect(subject.admit()).not.toBeNull();
  };

  const outcomes = async (registry: Registry) => {
    const metric = await registry.getSingleMetric('search_admissions_total')!.get();
    return Object.fromEntries(metric.values.map((v) => [v.labels.outcome, v.value]));
  };

  test('two answers past four fifths of their budget, though within it, lower the bound (near_budget)', async () => {
    const registry = new Registry();
    const subject = admission(registry);
    answer(subject, 1_300); // basic's budget is 1.5 s: 1.3 s is within it, past 1.2 s
    expect(subject.bound).toBe(8);
    answer(subject, 1_300);
    expect(subject.bound).toBe(6);
    expect(await outcomes(registry)).toEqual({ near_budget: 2 });
  });

  test('answers before four fifths of their budget raise it again; past the budget they are late', async () => {
    const registry = new Registry();
    const subject = admission(registry);
    answer(subject, 1_600);
    answer(subject, 1_600);
    expect(subject.bound).toBe(6);
    // Each answered search is held with two others: half the bound, which it is then using.
    hold(subject, 2);
    for (let i = 0; i < 6; i++) answer(subject, 1_100);
    expect(subject.bound).toBe(6);
    answer(subject, 1_100);
    expect(subject.bound).toBe(7);
    expect(await outcomes(registry)).toEqual({ late: 2, on_time: 7 });
  });

  test("each depth is judged by its own budget: advanced's is 3 s (2.3 s on time, 2.5 s near it)", () => {
    const subject = admission();
    answer(subject, 2_300, 'advanced');
    answer(subject, 2_300, 'advanced');
    expect(subject.bound).toBe(8);
    answer(subject, 2_500, 'advanced');
    answer(subject, 2_500, 'advanced');
    expect(subject.bound).toBe(6);
  });

  test('refusals and answers other than 200 do not move it', () => {
    const subject = admission();
    for (let i = 0; i < 8; i++) subject.admit()!({ status: 502, arrivedAt: performance.now() - 5_000, depth: 'basic' });
    expect(subject.bound).toBe(8);
    const held = Array.from({ length: 8 }, () => subject.admit());
    expect(held.every(Boolean)).toBe(true);
    expect(subject.admit()).toBeNull();
  });

  test('a node that reads the web starts at twice its floor (2 × 4 = 8 of 64) and grows by one for each answer on time', () => {
    const subject = admission(new Registry(), 64);
    expect(subject.bound).toBe(8);
    hold(subject, 5);
    for (let i = 0; i < 4; i++) answer(subject, 500);
    expect(subject.bound).toBe(12);
    // The first decrease ends the slow start: from 9, a bound's worth of answers on time raise it by one.
    answer(subject, 1_600);
    answer(subject, 1_600);
    expect(subject.bound).toBe(9);
    for (let i = 0; i < 9; i++) answer(subject, 500);
    expect(subject.bound).toBe(9);
    answer(subject, 500);
    expect(subject.bound).toBe(10);
  });

  test('answers to searches held while under half the bound do not raise it: the node has not shown it holds more', () => {
    const subject = admission(new Registry(), 64);
    for (let i = 0; i < 100; i++) answer(subject, 200);
    expect(subject.bound).toBe(8);
    hold(subject, 2);
    answer(subject, 200); // the third held: under half of 8
    expect(subject.bound).toBe(8);
    hold(subject, 1);
    answer(subject, 200); // the fourth held: half of 8
    expect(subject.bound).toBe(9);
  });

  test('a node that searches its local index alone starts at SEARCH_MAX_IN_FLIGHT', () => {
    expect(admission(new Registry(), 64, [localIndex]).bound).toBe(64);
  });

  test("answers' tails after their reading set the reserve; a search that asked for an answer (an LLM's) is not counted", () => {
    const subject = admission();
    expect(subject.answerReserveMs).toBe(500);
    const tail = (ms: number, askedAnswer = false) =>
      subject.admit()!({
        status: 200,
        arrivedAt: performance.now() - 900,
        depth: 'basic',
        workEndedAt: performance.now() - ms,
        askedAnswer,
      });
    for (let i = 0; i < 10; i++) tail(2_000, true);
    expect(subject.answerReserveMs).toBe(500);
    for (let i = 0; i < 5; i++) tail(50);
    expect(subject.answerReserveMs).toBe(150);
    for (let i = 0; i < 10; i++) tail(500);
    expect(subject.answerReserveMs).toBeGreaterThanOrEqual(500);
    expect(subject.answerReserveMs).toBeLessThan(600);
  });
});
