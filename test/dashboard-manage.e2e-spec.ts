import { DEVICES, dashboardRig, describeBrowser, horizontalOverflow, screenshot } from './support/dashboard-browser.js';
import { eventually } from './support/eventually.js';
import { RequestLogWriter } from '../src/request-log/request-log.writer.js';
import { addMember, call, setUpOrganization } from './support/test-app.js';

/**
 * Managing what exists: renaming a project, a key's own page, an operator changing the plan. Each screen at desktop
 * and phone widths.
 */
describeBrowser('the dashboard manages projects and keys', () => {
  const rig = dashboardRig({ owner: 'owner@manage.test', env: { OPERATOR_EMAILS: 'ops@manage.test' } });
  const signedIn = rig.signedIn;

  const projectName = async (projectId: string) =>
    (
      (await call(rig.app.url, 'GET', `/orgs/${rig.owner.orgId}/projects`, { token: rig.owner.session })).body
        .projects as {
        id: string;
        name: string;
      }[]
    ).find((p) => p.id === projectId)?.name;

  for (const [device, viewport] of DEVICES) {
    test(`Projects (${device}): rename a project in place; an empty name is refused inline; the API has the new name`, async () => {
      const { context, page, errors } = await signedIn(viewport);
      await page.goto(`/dashboard/orgs/${rig.owner.orgId}/projects`);
      await page.getByRole('heading', { name: /^Projects of/ }).waitFor();
      const current = (await projectName(rig.owner.projectId))!;
      await page.getByRole('button', { name: `Rename ${current}` }).click();
      const input = page.getByLabel('New name');
      await input.fill('   ');
      await input.press('Enter');
      await page.getByText('A name is required.').waitFor();
      expect(await projectName(rig.owner.projectId)).toBe(current);
      await screenshot(page, `40-project-rename-${device}`);

      const renamed = `Backend ${device}`;
      await input.fill(renamed);
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByText(`Project renamed to “${renamed}”.`).waitFor();
      await page.getByRole('button', { name: `Rename ${renamed}` }).waitFor();
      expect(await projectName(rig.owner.projectId)).toBe(renamed);
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
      await screenshot(page, `41-project-renamed-${device}`);

      // Escape leaves the name as it was.
      await page.getByRole('button', { name: `Rename ${renamed}` }).click();
      await page.getByLabel('New name').fill('not saved');
      await page.getByLabel('New name').press('Escape');
      await page.getByRole('button', { name: `Rename ${renamed}` }).waitFor();
      expect(await projectName(rig.owner.projectId)).toBe(renamed);
      expect(errors).toEqual([]);
      await context.close();
    }, 60_000);
  }

  test('Projects: a plain member sees the names without a Rename button', async () => {
    const reader = await addMember(rig.app, rig.smtp, rig.owner, 'reader@manage.test');
    const { context, page, errors } = await signedIn({ width: 1280, height: 900 }, reader);
    await page.goto(`/dashboard/orgs/${rig.owner.orgId}/projects`);
    await page.getByRole('heading', { name: /^Projects of/ }).waitFor();
    await page.getByText((await projectName(rig.owner.projectId))!, { exact: true }).waitFor();
    expect(await page.getByRole('button', { name: /^Rename / }).count()).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);

  for (const [device, viewport] of DEVICES) {
    test(`Key page (${device}): from the list to one key's facts, usage and recent requests; rename and revoke there`, async () => {
      const name = `Crawler ${device}`;
      const created = await call(rig.app.url, 'POST', `/orgs/${rig.owner.orgId}/api-keys`, {
        token: rig.owner.session,
        body: { name, project_id: rig.owner.projectId, scopes: ['search', 'extract'], depth_limit: 'basic' },
      });
      expect(created.status).toBe(201);
      const key = created.body.key as string;
      const keyId = created.body.id as string;
      for (const query of ['alpha', 'beta', 'gamma']) {
        expect((await call(rig.app.url, 'POST', '/search', { token: key, body: { query } })).status).toBe(200);
      }
      const refused = await call(rig.app.url, 'POST', '/search', {
        token: key,
        body: { query: 'too deep', search_depth: 'advanced' },
      });
      expect(refused.status).toBe(403);
      const usage = await eventually(
        'the usage report',
        async () =>
          (await call(rig.app.url, 'GET', `/orgs/${rig.owner.orgId}/usage`, { token: rig.owner.session })).body,
        (report) =>
          report.by_key.some((k: { key_id: string; requests: number }) => k.key_id === keyId && k.requests === 3),
      );
      const byKey = usage.by_key.find((k: { key_id: string }) => k.key_id === keyId);
      await rig.app.app.get(RequestLogWriter).flush();
      const logged = (
        await call(rig.app.url, 'GET', `/orgs/${rig.owner.orgId}/requests?key_id=${keyId}`, {
          token: rig.owner.session,
        })
      ).body.requests as { request_id: string; summary: string; status: number }[];
      expect(logged.map((r) => r.status).sort()).toEqual([200, 200, 200, 403]);
      const listed = (
        await call(rig.app.url, 'GET', `/orgs/${rig.owner.orgId}/api-keys`, { token: rig.owner.session })
      ).body.keys.find((k: { id: string }) => k.id === keyId);

      const { context, page, errors } = await signedIn(viewport);
      await page.goto(`/dashboard/orgs/${rig.owner.orgId}/keys`);
      await page.getByRole('link', { name, exact: true }).click();
      await page.getByRole('heading', { name: `API key “${name}”` }).waitFor();
      expect(new URL(page.url()).pathname).toBe(`/dashboard/orgs/${rig.owner.orgId}/keys/${keyId}`);
      const facts = Object.fromEntries(
        await page
          .locator('#key-facts .fact')
          .evaluateAll((rows) =>
            rows.map((row) => [row.querySelector('dt')!.textContent, row.querySelector('dd')!.textContent]),
          ),
      ) as Record<string, string>;
      expect(facts).toMatchObject({
        Name: `${name}Rename`,
        Prefix: `${listed.prefix}…`,
        Environment: 'live',
        Project: await projectName(rig.owner.projectId),
        Status: 'active',
        Scopes: 'search, extract',
        Depth: 'basic only (advanced is refused)',
      });
      expect(facts['Last used']).not.toBe('never');
      expect(await page.locator('#key-usage [data-figure="credits"]').textContent()).toBe(String(byKey.credits));
      expect(await page.locator('#key-usage [data-figure="requests"]').textContent()).toBe(String(byKey.requests));
      const rows = page.locator('table.responsive tbody tr');
      expect(await rows.count()).toBe(logged.length);
      expect(await rows.filter({ hasText: 'too deep' }).textContent()).toContain('403');
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
      await screenshot(page, `42-key-page-${device}`);

      // Rename there: the heading and the API follow.
      await page.getByRole('button', { name: `Rename ${name}` }).click();
      await page.getByLabel('New name').fill(`${name} (old)`);
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByRole('heading', { name: `API key “${name} (old)”` }).waitFor();
      await page.getByText(`Key renamed to “${name} (old)”.`).waitFor();
      const keys = async () =>
        (await call(rig.app.url, 'GET', `/orgs/${rig.owner.orgId}/api-keys`, { token: rig.owner.session })).body
          .keys as {
          id: string;
          name: string;
          status: string;
        }[];
      expect((await keys()).find((k) => k.id === keyId)?.name).toBe(`${name} (old)`);

      // Revoke there, after the dialog: the key is refused at once, the page says revoked, no more controls.
      await page.getByRole('button', { name: `Revoke ${name} (old)` }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Revoke key' }).click();
      await page.getByText(`Key “${name} (old)” revoked.`).waitFor();
      await page.locator('#key-facts').getByText('revoked', { exact: true }).waitFor();
      expect(await page.getByRole('button', { name: /^(Rename|Revoke) / }).count()).toBe(0);
      expect((await keys()).find((k) => k.id === keyId)?.status).toBe('revoked');
      expect((await call(rig.app.url, 'POST', '/search', { token: key, body: { query: 'after' } })).status).toBe(401);
      await screenshot(page, `43-key-revoked-${device}`);
      expect(errors).toEqual([]);
      await context.close();
    }, 60_000);
  }

  test("Key page: another organization's key, or no key, is not found (and says so)", async () => {
    const other = await setUpOrganization(rig.app, rig.smtp, 'other@manage.test');
    const theirs = await call(rig.app.url, 'POST', `/orgs/${other.orgId}/api-keys`, {
      token: other.session,
      body: { name: 'Theirs', project_id: other.projectId },
    });
    const { context, page, errors } = await signedIn({ width: 1280, height: 900 });
    for (const keyId of [theirs.body.id as string, 'nope']) {
      await page.goto(`/dashboard/orgs/${rig.owner.orgId}/keys/${keyId}`);
      await page.getByRole('heading', { name: 'Key not found' }).waitFor();
      expect(await page.content()).not.toContain('Theirs');
    }
    await page.getByRole('link', { name: '← All API keys' }).click();
    await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);

  const organization = async () =>
    (await call(rig.app.url, 'GET', `/orgs/${rig.owner.orgId}`, { token: rig.owner.session })).body as {
      plan: string;
      monthly_credit_allowance: number;
      rate_limit_per_minute: { live: number; test: number };
    };

  for (const [device, viewport] of DEVICES) {
    test(`Members and plan (${device}): an operator changes the plan there; the owner, no operator, cannot`, async () => {
      const ops = await addMember(rig.app, rig.smtp, rig.owner, 'ops@manage.test');

      // The owner sees the plan and who changes it, and no form.
      const asOwner = await signedIn(viewport);
      await asOwner.page.goto(`/dashboard/orgs/${rig.owner.orgId}/members`);
      await asOwner.page.getByRole('heading', { name: /^Members and plan of/ }).waitFor();
      await asOwner.page.getByText('Plans are changed by an operator of this server').waitFor();
      expect(await asOwner.page.getByRole('button', { name: 'Change plan' }).count()).toBe(0);
      expect(asOwner.errors).toEqual([]);
      await asOwner.context.close();

      const { context, page, errors } = await signedIn(viewport, ops);
      await page.goto(`/dashboard/orgs/${rig.owner.orgId}/members`);
      await page.getByRole('heading', { name: 'Change the plan (operator)' }).waitFor();
      const before = await organization();
      expect(await page.getByLabel('Plan', { exact: true }).inputValue()).toBe(before.plan);
      // A limit the form cannot send is refused inline, and nothing changes.
      await page.getByLabel('Monthly allowance (live credits)').fill('-1');
      await page.getByRole('button', { name: 'Change plan' }).click();
      await expect(page.getByLabel('Monthly allowance (live credits)').getAttribute('aria-invalid')).resolves.toBe(
        'true',
      );
      expect(await organization()).toEqual(before);
      await screenshot(page, `44-plan-operator-${device}`);

      const plan = device === 'desktop' ? 'startup' : 'bootstrap';
      const live = device === 'desktop' ? 250 : 150;
      await page.getByLabel('Plan', { exact: true }).selectOption(plan);
      await page.getByLabel('Monthly allowance (live credits)').fill('');
      await page.getByLabel('Rate limit, live keys (requests/min)').fill(String(live));
      await page.getByRole('button', { name: 'Change plan' }).click();
      // Asked first: what changes, and for whom. Cancel changes nothing; Confirm changes it.
      const question = page.locator('#plan-confirm-text');
      expect(await question.textContent()).toContain(
        `from ${before.plan} to ${plan} (${live} live requests a minute)?`,
      );
      await page.getByRole('button', { name: 'Cancel' }).click();
      await page.getByRole('button', { name: 'Change plan' }).waitFor();
      expect(await organization()).toEqual(before);
      await page.getByRole('button', { name: 'Change plan' }).click();
      await screenshot(page, `45-plan-confirm-${device}`);
      await page.getByRole('button', { name: 'Confirm change' }).click();
      await page.getByText(`Plan changed to ${plan}:`).waitFor();
      const after = await organization();
      expect(after).toMatchObject({ plan, rate_limit_per_minute: { live } });
      // The message may come while the page shows the new plan is still loading: wait for its figures.
      await page.locator('#plan dd').first().filter({ hasText: plan }).waitFor();
      expect(await page.locator('#plan dd').allTextContents()).toEqual([
        plan,
        after.monthly_credit_allowance.toLocaleString('en-US'),
        `${after.rate_limit_per_minute.live} requests/min`,
        `${after.rate_limit_per_minute.test} requests/min`,
      ]);
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
      await screenshot(page, `45-plan-changed-${device}`);
      expect(errors).toEqual([]);
      await context.close();
    }, 60_000);
  }
});
