import { type ActionFacts, describeAction } from './describe-action.js';

const facts = (action: ActionFacts['action'], details: Record<string, unknown>, more: Partial<ActionFacts> = {}) =>
  describeAction({ action, details, nameBefore: null, keyPrefix: null, memberEmail: null, ...more });

describe('describeAction', () => {
  it('says what was done to a key, with its name as it was and its prefix', () => {
    expect(facts('KeyCreated', { name: 'CI', environment: 'test', prefix: 'sk_test_Ab3dE9' })).toBe(
      'Created the test key “CI” (sk_test_Ab3dE9…)',
    );
    expect(facts('KeyRenamed', { name: 'Nightly' }, { nameBefore: 'CI' })).toBe('Renamed the key “CI” to “Nightly”');
    expect(facts('KeyRevoked', {}, { nameBefore: 'Nightly', keyPrefix: 'sk_live_x' })).toBe(
      'Revoked the key “Nightly” (sk_live_x…)',
    );
    expect(facts('KeyBudgetSet', { monthly_credit_limit: 2500 }, { nameBefore: 'CI' })).toBe(
      'Set the monthly credit limit of the key “CI” to 2,500 credits',
    );
    expect(facts('KeyBudgetSet', { monthly_credit_limit: null }, { nameBefore: 'CI' })).toBe(
      'Removed the monthly credit limit of the key “CI”',
    );
  });

  it('says what was done to the plan and the members, with the right article', () => {
    const limits = {
      plan: 'growth',
      monthly_credit_allowance: 100000,
      rate_limit_per_minute: { live: 1000, test: 100 },
    };
    expect(facts('PlanChanged', limits)).toBe(
      'Changed the plan to the growth plan: 100,000 credits a month, 1,000 live and 100 test requests a minute',
    );
    expect(facts('MemberAdded', { email: 'ana@acme.test', role: 'admin', previous_role: null })).toBe(
      'Added ana@acme.test as an admin',
    );
    expect(facts('MemberAdded', { email: 'bo@acme.test', role: 'member' })).toBe('Added bo@acme.test as a member');
    expect(facts('MemberAdded', { email: 'ana@acme.test', role: 'member', previous_role: 'admin' })).toBe(
      'Changed the role of ana@acme.test from admin to member',
    );
    expect(facts('MemberRemoved', {}, { memberEmail: 'bo@acme.test' })).toBe(
      'Removed bo@acme.test from the organization',
    );
  });

  it('says what was granted, set, adjusted and closed', () => {
    const note = { credits: 5000, recurrence: 'once', expires_at: '2026-12-31T23:59:59.999Z', note: 'launch' };
    expect(facts('CreditsGranted', note)).toBe('Granted 5,000 credits once, expiring 2026-12-31 (launch)');
    expect(facts('CreditsGranted', { credits: 100, recurrence: 'monthly', expires_at: null, note: null })).toBe(
      'Granted 100 credits every month',
    );
    expect(facts('AlertThresholdsSet', { scope: 'organization', thresholds: [50, 90] })).toBe(
      "Set the alert thresholds of the organization's allowance to 50 %, 90 %",
    );
    expect(facts('AlertThresholdsSet', { scope: 'key', thresholds: [80] }, { nameBefore: 'CI' })).toBe(
      'Set the alert thresholds of the key “CI” to 80 %',
    );
    expect(
      facts('LedgerAdjusted', { corrects_month: '2026-10', month: '2026-11', credits: -5, reason: 'outage refund' }),
    ).toBe('Adjusted 2026-10 by -5 credits, booked in 2026-11: outage refund');
    expect(facts('StatementIssued', { month: '2026-10', billable_credits: 1234 })).toBe(
      'Closed 2026-10: statement issued, 1,234 billable credits',
    );
  });
});
