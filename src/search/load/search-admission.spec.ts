import { performance } from 'node:perf_hooks';
import type { HttpAdapterHost } from '@nestjs/core';
import { Registry } from 'prom-client';
import type { AppConfig } from '../../config/app-config.js';
import { SearchAdmission } from './search-admission.js';

describe('SearchAdmission: how answers move the bound', () => {
  const admission = (registry = new Registry()) =>
    new SearchAdmission({} as HttpAdapterHost, { searchMaxInFlight: 8, extractThreads: 1 } as AppConfig, registry);

  /** One search admitted and answered (200) `ms` after it arrived. */
  const answer = (subject: SearchAdmission, ms: number, depth = 'basic') =>
    subject.admit()!({ status: 200, arrivedAt: performance.now() - ms, depth });

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
});
