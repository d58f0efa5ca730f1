import type { Page } from 'playwright-core';
import { DEVICES, dashboardRig, describeBrowser, horizontalOverflow, screenshot } from './support/dashboard-browser.js';
import { eventually } from './support/eventually.js';
import { type Json, addMember, call } from './support/test-app.js';

interface Listed {
  id: string;
  name: string;
  monthly_credit_limit: number | null;
}

/**
 * Monthly credit limits (budgets) in the dashboard: set at creation and changed in place by owners and admins, on a
 * key's page and on the Projects screen, shown against the credits of the month up to the 402 that names the limit;
 * plain members see them without a form. Each screen at desktop and phone widths.
 */
describeBrowser('the dashboard shows and sets monthly credit limits', () => {
  const rig = dashboardRig({ owner: 'owner@budgets.test' });
  const signedIn = rig.signedIn;
  const get = async (path: string) =>
    (await call(rig.app.url, 'GET', `/orgs/${rig.owner.orgId}${path}`, { token: rig.owner.session })).body;
  const listedKey = async (name: string) => ((await get('/api-keys')).keys as Listed[]).find((k) => k.name === name);
  const listedProject = async (name: string) =>
    ((await get('/projects')).projects as Listed[]).find((p) => p.name === name);
  const createKey = async (body: Record<string, unknown>) => {
    const created = await call(rig.app.url, 'POST', `/orgs/${rig.owner.orgId}/api-keys`, {
      token: rig.owner.session,
      body,
    });
    expect(created.status).toBe(201);
    return { id: created.body.id as string, key: created.body.key as string };
  };
  const search = (key: string, query: string) => call(rig.app.url, 'POST', '/search', { token: key, body: { query } });
  /** `allowed` searches answered, then the next one refused: its 402 body. */
  const useUp = async (keys: string[], allowed: number): Promise<Json['body']> => {
    for (let i = 0; i < allowed; i++) expect((await search(keys[i % keys.length]!, `call ${i}`)).status).toBe(200);
    const refused = await search(keys[0]!, 'one too many');
    expect(refused.status).toBe(402);
    return refused.body;
  };
  const budgetText = (page: Page, scope: string) => page.locator(`${scope} [data-figure="budget"]`).textContent();
  /** The limit field refuses what the API would (nothing is sent), saying why under the field. */
  const refusedInline = async (page: Page, label: string, value: string, message: string, submit: string) => {
    const input = page.getByLabel(label, { exact: true });
    await input.fill(value);
    await page.getByRole('button', { name: submit, exact: true }).click();
    await expect(input.getAttribute('aria-invalid')).resolves.toBe('true');
    await page.getByText(message).waitFor();
  };

  /** A key or a project created in its screen's form: first with a limit refused inline (nothing created), then `limit`. */
  const createWithLimit = async (
    page: Page,
    form: {
      screen: 'keys' | 'projects';
      nameLabel: string;
      name: string;
      refused: [string, string];
      limit: string;
      submit: string;
      listed: (name: string) => Promise<Listed | undefined>;
    },
  ) => {
    await page.goto(`/dashboard/orgs/${rig.owner.orgId}/${form.screen}`);
    await page.getByLabel(form.nameLabel).fill(form.name);
    await refusedInline(page, 'Monthly credit limit (optional)', ...form.refused, form.submit);
    expect(await form.listed(form.name)).toBeUndefined();
    await page.getByLabel('Monthly credit limit (optional)').fill(form.limit);
    await page.getByRole('button', { name: form.submit }).click();
  };

  for (const [device, viewport] of DEVICES) {
    test(`Key (${device}): created with a limit, listed; changed on its page; used up to a 402 naming the key, shown as 3 of 3; removed; a refusal shown`, async () => {
      const { context, page, errors } = await signedIn(viewport);
      const name = `Agent ${device}`;
      await createWithLimit(page, {
        screen: 'keys',
        nameLabel: 'Key name',
        name,
        refused: ['-1', 'The limit is 0 credits or more.'],
        limit: '2',
        submit: 'Create key',
        listed: listedKey,
      });
      const secret = await page.locator('input.secret').inputValue();
      const row = page.locator('table.responsive tbody tr', { hasText: name });
      await expect(row.locator('td[data-label="Monthly limit"]').textContent()).resolves.toBe('2 credits a month');
      const key = (await listedKey(name))!;
      expect(key.monthly_credit_limit).toBe(2);
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
      await screenshot(page, `50-key-created-with-limit-${device}`);

      // Its page: none used of 2; a limit that is no whole number is refused there too, then 3 is saved.
      await page.getByRole('link', { name, exact: true }).click();
      await page.getByRole('heading', { name: `API key “${name}”` }).waitFor();
      expect(await budgetText(page, '#key-budget')).toBe('0 of 2 credits (0 %)');
      await page.getByRole('button', { name: `Change limit of ${name}`, exact: true }).click();
      await refusedInline(page, 'Monthly credit limit', '1.5', 'The limit is a whole number of credits.', 'Save limit');
      expect((await listedKey(name))!.monthly_credit_limit).toBe(2);
      await page.getByLabel('Monthly credit limit', { exact: true }).fill('3');
      await page.getByRole('button', { name: 'Save limit' }).click();
      await page.getByText(`Monthly credit limit of “${name}” set to 3 credits a month.`).waitFor();
      expect((await listedKey(name))!.monthly_credit_limit).toBe(3);

      // Used up: the 402 names the key; the page says 3 of 3 once the usage report has the three calls.
      expect(await useUp([secret], 3)).toMatchObject({ limit: 'key', credits_used: 3, credits_limit: 3 });
      await eventually(
        'the usage report',
        async () =>
          ((await get('/usage')).by_key as { key_id: string; credits: number }[]).find((k) => k.key_id === key.id),
        (figures) => figures?.credits === 3,
      );
      await page.reload();
      await page.getByRole('heading', { name: `API key “${name}”` }).waitFor();
      expect(await budgetText(page, '#key-budget')).toBe('3 of 3 credits (100 %)');
      expect(await page.locator('#key-usage [data-figure="credits"]').textContent()).toBe('3');
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
      await screenshot(page, `51-key-limit-reached-${device}`);

      // Removed: no limit of its own, and the key serves again.
      await page.getByRole('button', { name: `Change limit of ${name}`, exact: true }).click();
      await page.getByRole('button', { name: 'Remove limit' }).click();
      await page.getByText(`“${name}” has no monthly credit limit of its own now.`).waitFor();
      expect(await budgetText(page, '#key-budget')).toBe('3 credits used; no limit of its own');
      expect((await listedKey(name))!.monthly_credit_limit).toBeNull();
      expect((await search(secret, 'free again')).status).toBe(200);

      // What the server refuses is said in the form: the key was revoked elsewhere meanwhile.
      await page.getByRole('button', { name: `Set limit of ${name}`, exact: true }).click();
      await page.getByLabel('Monthly credit limit', { exact: true }).fill('10');
      const revoked = await call(rig.app.url, 'DELETE', `/orgs/${rig.owner.orgId}/api-keys/${key.id}`, {
        token: rig.owner.session,
      });
      expect(revoked.status).toBe(200);
      await page.getByRole('button', { name: 'Save limit' }).click();
      await page.locator('#key-budget [role="alert"]').getByText('a revoked key cannot be given a budget').waitFor();
      expect((await listedKey(name))!.monthly_credit_limit).toBeNull();
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
      await screenshot(page, `52-key-limit-refused-${device}`);
      expect(errors).toEqual([]);
      await context.close();
    }, 90_000);
  }

  for (const [device, viewport] of DEVICES) {
    test(`Project (${device}): created with a limit, changed in place; its live keys used up to a 402 naming the project, shown as 2 of 2`, async () => {
      const { context, page, errors } = await signedIn(viewport);
      const name = `Capped ${device}`;
      await createWithLimit(page, {
        screen: 'projects',
        nameLabel: 'Project name',
        name,
        refused: ['2.5', 'The limit is a whole number of credits.'],
        limit: '4',
        submit: 'Create project',
        listed: listedProject,
      });
      await page.getByText(`Project “${name}” created.`).waitFor();
      const project = (await listedProject(name))!;
      expect(project.monthly_credit_limit).toBe(4);

      await page.goto(`/dashboard/orgs/${rig.owner.orgId}/projects`);
      const row = `table.responsive tbody tr:has-text("${name}")`;
      await page.locator(row).waitFor();
      expect(await budgetText(page, row)).toBe('0 of 4 credits (0 %)');
      await page.getByRole('button', { name: `Change limit of ${name}`, exact: true }).click();
      await page.getByLabel('Monthly credit limit', { exact: true }).fill('2');
      await page.getByRole('button', { name: 'Save limit' }).click();
      await page.getByText(`Monthly credit limit of project “${name}” set to 2 credits a month.`).waitFor();
      expect((await listedProject(name))!.monthly_credit_limit).toBe(2);

      // Two live keys of the project share it; a test key of it is not counted.
      const [a, b, testKey] = await Promise.all([
        createKey({ name: `${name} a`, project_id: project.id }),
        createKey({ name: `${name} b`, project_id: project.id }),
        createKey({ name: `${name} test`, project_id: project.id, environment: 'test' }),
      ]);
      expect(await useUp([a.key, b.key], 2)).toMatchObject({ limit: 'project', credits_used: 2, credits_limit: 2 });
      expect((await search(testKey.key, 'test key')).status).toBe(200);
      await eventually(
        'the usage report',
        async () =>
          ((await get('/usage')).by_project as { project_id: string; environment: string; credits: number }[]).filter(
            (p) => p.project_id === project.id,
          ),
        (figures) =>
          figures.find((f) => f.environment === 'live')?.credits === 2 &&
          figures.find((f) => f.environment === 'test')?.credits === 1,
      );
      await page.reload();
      await page.locator(row).waitFor();
      expect(await budgetText(page, row)).toBe('2 of 2 credits (100 %)');
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
      await screenshot(page, `53-project-limit-reached-${device}`);
      expect(errors).toEqual([]);
      await context.close();
    }, 90_000);
  }

  test('a plain member sees the limits (a limit of 0 among them) and no form, at both widths', async () => {
    const reader = await addMember(rig.app, rig.smtp, rig.owner, 'reader@budgets.test');
    const project = await call(rig.app.url, 'POST', `/orgs/${rig.owner.orgId}/projects`, {
      token: rig.owner.session,
      body: { name: 'Read only', monthly_credit_limit: 50 },
    });
    const closed = await createKey({ name: 'Closed', project_id: project.body.id, monthly_credit_limit: 0 });
    expect(await useUp([closed.key], 0)).toMatchObject({ limit: 'key', credits_used: 0, credits_limit: 0 });

    for (const [device, viewport] of DEVICES) {
      const { context, page, errors } = await signedIn(viewport, reader);
      await page.goto(`/dashboard/orgs/${rig.owner.orgId}/keys/${closed.id}`);
      await page.getByRole('heading', { name: 'API key “Closed”' }).waitFor();
      expect(await budgetText(page, '#key-budget')).toBe('0 of 0 credits: a limit of 0 refuses every call');
      expect(await page.getByRole('button', { name: /limit/ }).count()).toBe(0);
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
      await screenshot(page, `54-key-limit-member-${device}`);

      await page.goto(`/dashboard/orgs/${rig.owner.orgId}/projects`);
      const row = 'table.responsive tbody tr:has-text("Read only")';
      await page.locator(row).waitFor();
      expect(await budgetText(page, row)).toBe('0 of 50 credits (0 %)');
      expect(await page.getByRole('button', { name: /limit/ }).count()).toBe(0);
      expect(await page.getByLabel('Monthly credit limit (optional)').count()).toBe(0);
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
      await screenshot(page, `55-project-limits-member-${device}`);
      expect(errors).toEqual([]);
      await context.close();
    }
  }, 90_000);
});
