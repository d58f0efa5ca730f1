import { AdaptiveLimit } from './adaptive-limit.js';

describe('AdaptiveLimit', () => {
  test('starts at the ceiling; a second late answer lowers it to three quarters, once per cooldown', () => {
    const limit = new AdaptiveLimit(64, 4);
    expect(limit.current).toBe(64);
    limit.late(10_000);
    expect(limit.current).toBe(64);
    limit.late(10_100);
    expect(limit.current).toBe(48);
    // The searches admitted before the decrease are still late for the same reason: no second decrease yet.
    limit.late(10_500);
    limit.late(11_500);
    expect(limit.current).toBe(48);
    limit.late(11_700);
    expect(limit.current).toBe(36);
  });

  test('one late answer among the last 20 is not the load: no decrease', () => {
    const limit = new AdaptiveLimit(64, 4);
    for (let i = 0; i < 5; i++) {
      limit.late(i * 10_000);
      for (let j = 0; j < 19; j++) limit.onTime();
    }
    expect(limit.current).toBe(64);
  });

  test('never below the floor, never above the ceiling', () => {
    const limit = new AdaptiveLimit(16, 6);
    for (let i = 0; i < 40; i++) limit.late(i * 2_000);
    expect(limit.current).toBe(6);
    for (let i = 0; i < 10_000; i++) limit.onTime();
    expect(limit.current).toBe(16);
  });

  test('answers on time raise it by one for each limit-worth of them', () => {
    const limit = new AdaptiveLimit(64, 4);
    limit.late(0);
    limit.late(0);
    expect(limit.current).toBe(48);
    for (let i = 0; i < 48; i++) limit.onTime();
    expect(limit.current).toBe(48);
    limit.onTime();
    expect(limit.current).toBe(49);
  });

  test('a ceiling at or under the floor stays where it is', () => {
    const limit = new AdaptiveLimit(2, 2);
    limit.late(0);
    limit.late(0);
    expect(limit.current).toBe(2);
  });

  test('from an initial value under the ceiling, slow start: one more for each answer on time, until the first decrease', () => {
    const limit = new AdaptiveLimit(64, 4, 16);
    expect(limit.current).toBe(16);
    for (let i = 0; i < 16; i++) limit.onTime();
    expect(limit.current).toBe(32);
    limit.late(0);
    limit.late(0);
    expect(limit.current).toBe(24);
    for (let i = 0; i < 24; i++) limit.onTime();
    expect(limit.current).toBe(24);
    limit.onTime();
    expect(limit.current).toBe(25);
    for (let i = 0; i < 10_000; i++) limit.onTime();
    expect(limit.current).toBe(64);
  });

  test('answers to searches held while the limit was not in use (under half of it held) do not raise it', () => {
    const limit = new AdaptiveLimit(64, 4, 16);
    expect(limit.usedAt(7)).toBe(false);
    expect(limit.usedAt(8)).toBe(true);
    for (let i = 0; i < 100; i++) limit.onTime(false);
    expect(limit.current).toBe(16);
  });

  test('the initial value stays between the floor and the ceiling', () => {
    expect(new AdaptiveLimit(8, 4, 16).current).toBe(8);
    expect(new AdaptiveLimit(64, 6, 2).current).toBe(6);
  });
});
