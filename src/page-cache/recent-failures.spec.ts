import { RecentFailures } from './recent-failures.js';

describe('RecentFailures', () => {
  test('a failure counts within max_age and the TTL; max_age 0 never; a later success forgets it', () => {
    const failures = new RecentFailures();
    const now = Date.now();
    failures.remember('http://a.test/', now - 30_000);
    expect(failures.failedWithin('http://a.test/', 60, now)).toBe(true);
    expect(failures.failedWithin('http://a.test/', 10, now)).toBe(false);
    expect(failures.failedWithin('http://a.test/', 0, now)).toBe(false);
    expect(failures.failedWithin('http://b.test/', 60, now)).toBe(false);
    failures.forget('http://a.test/');
    expect(failures.failedWithin('http://a.test/', 60, now)).toBe(false);
  });
});
