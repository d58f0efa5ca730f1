import { randomUUID } from 'node:crypto';
import { toNewEvent } from '../src/event-store/domain-event.js';
import { EVENT_STORE, type EventStore } from '../src/event-store/event-store.port.js';
import {
  type MemberAdded,
  type OrganizationCreated,
  type PlanChanged,
  organizationStream,
} from '../src/organizations/events/organization.events.js';
import { PLANS } from '../src/organizations/plans.js';
import {
  closeBrowser,
  DEVICES,
  buildDashboard,
  hasChromium,
  horizontalOverflow,
  launchChromium,
  newPage,
  screenshot,
} from './support/dashboard-browser.js';
import { eventually } from './support/eventually.js';
import { call, signIn, useTestApp } from './support/test-app.js';

/**
 * GET /orgs/{org_id}/usage for a past month shows the plan and limits that held at its end (from the plan's
 * events), not today's; a month that ended before the organization existed has none.
 */
describe('a month’s usage shows the plan that held then', () => {
  let session: string;
  const orgId = randomUUID();

  const app = useTestApp({}, 60_000);
  beforeAll(async () => {
    session = await signIn(app, app.smtp, 'finance@then.test');
    const me = await call(app.url, 'GET', '/auth/session', { token: session });
    const actor = { type: 'user', id: me.body.user.id } as const;
    // An organization created on 15 September on the free plan, moved to growth on 10 October and to startup on
    // 3 November (events as the commands write them, at those times).
    const created: OrganizationCreated = {
      type: 'OrganizationCreated',
      data: { org_id: orgId, name: 'Then Inc', plan: 'free', created_by: me.body.user.id, ...PLANS.free },
    };
    const owner: MemberAdded = {
      type: 'MemberAdded',
      data: { org_id: orgId, user_id: me.body.user.id, email: 'finance@then.test', role: 'owner' },
    };
    const plan = (name: 'growth' | 'startup'): PlanChanged => ({
      type: 'PlanChanged',
      data: { org_id: orgId, plan: name, ...PLANS[name] },
    });
    const store = app.app.get<EventStore>(EVENT_STORE);
    await store.appendToStream(
      organizationStream(orgId),
      [
        toNewEvent(created, actor, { occurredAt: new Date('2026-09-15T10:00:00Z') }),
        toNewEvent(owner, actor, { occurredAt: new Date('2026-09-15T10:00:00Z') }),
        toNewEvent(plan('growth'), { type: 'operator', id: 'ops' }, { occurredAt: new Date('2026-10-10T12:00:00Z') }),
        toNewEvent(plan('startup'), { type: 'operator', id: 'ops' }, { occurredAt: new Date('2026-11-03T08:00:00Z') }),
      ],
      'no_stream',
    );
    await eventually(
      'the organization in the read models',
      () => call(app.url, 'GET', `/orgs/${orgId}/usage?month=2026-11`, { token: session }),
      (r) => r.status === 200 && r.body.plan?.plan === 'startup',
    );
  }, 60_000);

  const usage = async (month: string) =>
    (await call(app.url, 'GET', `/orgs/${orgId}/usage?month=${month}`, { token: session })).body;

  test('each month has the plan at its end, with its allowance and rate limits', async () => {
    expect(await usage('2026-09')).toMatchObject({
      plan: { plan: 'free', monthly_credit_allowance: 1_000, since: '2026-09-15T10:00:00.000Z' },
      credits_limit: 1_000,
      credits_limit_parts: { allowance: 1_000, grants: null, overage_cap: null },
      credits_remaining: 1_000,
    });
    expect(await usage('2026-10')).toMatchObject({
      plan: { plan: 'growth', monthly_credit_allowance: 100_000, rate_limit_per_minute: { live: 1_000, test: 100 } },
      credits_limit: 100_000,
    });
    expect((await usage('2026-11')).plan).toMatchObject({ plan: 'startup', since: '2026-11-03T08:00:00.000Z' });
  });

  test('a month before the organization existed has no plan and no allowance', async () => {
    expect(await usage('2026-08')).toMatchObject({ plan: null, credits_limit: 0, credits_remaining: 0 });
  });

  for (const [device, viewport] of DEVICES) {
    (hasChromium ? test : test.skip)(
      `the Usage screen (${device}) shows the month's plan, or that there was none`,
      async () => {
        buildDashboard();
        const browser = await launchChromium();
        try {
          const { context, page, errors } = await newPage(browser, app, viewport);
          await context.addCookies([{ name: 'session', value: session, url: app.url }]);
          await page.goto(`/dashboard/orgs/${orgId}/usage?month=2026-10`);
          await page.locator('#plan').waitFor();
          expect(await page.locator('#plan').textContent()).toBe('growth');
          expect(await page.locator('main').textContent()).toContain('1,000/min live · 100/min test');
          await page.goto(`/dashboard/orgs/${orgId}/usage?month=2026-08`);
          await page.locator('#no-plan').waitFor();
          expect(await page.locator('#no-plan').textContent()).toBe('Then Inc did not exist yet in August 2026.');
          expect(await page.locator('#plan').textContent()).toBe('none yet');
          await screenshot(page, `35-usage-before-${device}`);
          expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
          expect(errors).toEqual([]);
          await context.close();
        } finally {
          await closeBrowser(browser);
        }
      },
      60_000,
    );
  }
});
