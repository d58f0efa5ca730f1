import { type GrantBalance, allocateCharge, grantContribution, grantRemaining } from './grant-spending.js';

const grant = (id: string, overrides: Partial<GrantBalance> = {}): GrantBalance => ({
  grantId: id,
  credits: 10,
  recurrence: 'once',
  expiresAt: null,
  grantedAt: new Date('2026-11-01T00:00:00Z'),
  revokedAt: null,
  usedThisMonth: 0,
  usedBefore: 0,
  ...overrides,
});
const at = new Date('2026-11-15T12:00:00Z');

describe('grant spending', () => {
  test('the allowance first, then the soonest to expire, grants without expiry last, ties by grant time', () => {
    const grants = [
      grant('none'),
      grant('late', { expiresAt: new Date('2026-12-31T00:00:00Z') }),
      grant('soon-b', { expiresAt: new Date('2026-11-20T00:00:00Z'), grantedAt: new Date('2026-11-02T00:00:00Z') }),
      grant('soon-a', { expiresAt: new Date('2026-11-20T00:00:00Z'), credits: 2 }),
    ];
    expect(allocateCharge(25, at, '2026-11', 5, 2, grants)).toEqual({
      allowance: 3,
      grants: [
        { grant_id: 'soon-a', credits: 2 },
        { grant_id: 'soon-b', credits: 10 },
        { grant_id: 'late', credits: 10 },
      ],
      overage: 0,
    });
    expect(allocateCharge(40, at, '2026-11', 0, 0, grants)).toMatchObject({ overage: 8 });
  });

  test("an expired or revoked grant pays nothing from the charge's time on, and stops adding its unused part", () => {
    const expired = grant('x', { expiresAt: new Date('2026-11-15T11:59:59Z'), usedThisMonth: 3 });
    expect(allocateCharge(1, at, '2026-11', 0, 0, [expired])).toEqual({ allowance: 0, grants: [], overage: 1 });
    expect(grantContribution(expired, '2026-11', at)).toBe(3);
    const revoked = grant('r', { revokedAt: new Date('2026-11-10T00:00:00Z'), usedThisMonth: 4 });
    expect(grantRemaining(revoked, '2026-11', at)).toBe(0);
    expect(grantContribution(revoked, '2026-11', at)).toBe(4);
  });

  test('a one-time grant carries over what earlier months left; a monthly one starts afresh each month', () => {
    expect(grantRemaining(grant('once', { usedBefore: 7, usedThisMonth: 1 }), '2026-12', at)).toBe(2);
    expect(
      grantRemaining(grant('monthly', { recurrence: 'monthly', usedBefore: 7, usedThisMonth: 1 }), '2026-12', at),
    ).toBe(9);
    // Not before the month it was granted in.
    expect(grantRemaining(grant('future', { grantedAt: new Date('2026-12-01T00:00:00Z') }), '2026-11', at)).toBe(0);
  });

  test('fractional credits split exactly, to the ten-thousandth', () => {
    const split = allocateCharge(0.3, at, '2026-11', 1, 0.9, [grant('g', { credits: 1 })]);
    expect(split).toEqual({ allowance: 0.1, grants: [{ grant_id: 'g', credits: 0.2 }], overage: 0 });
  });
});
