import { readFile } from 'node:fs/promises';
import { DEVICES, dashboardRig, describeBrowser, horizontalOverflow, screenshot } from './support/dashboard-browser.js';
import { eventually } from './support/eventually.js';
import { addMember, call } from './support/test-app.js';

/** The Audit log screen (owners and admins): who did what, filters, CSV; a revoked key's page names who revoked it. */
describeBrowser('the dashboard’s audit log', () => {
  const rig = dashboardRig({ owner: 'owner@audit-screen.test' });
  let memberSession: string;
  let keyId: string;

  beforeAll(async () => {
    const { app, smtp, owner } = rig;
    const adminSession = await addMember(app, smtp, owner, 'ana@audit-screen.test', 'admin');
    memberSession = await addMember(app, smtp, owner, 'bo@audit-screen.test', 'member');
    const created = await call(app.url, 'POST', `/orgs/${owner.orgId}/api-keys`, {
      token: owner.session,
      body: { name: 'Nightly batch', project_id: owner.projectId },
    });
    keyId = created.body.id;
    const revoked = await call(app.url, 'DELETE', `/orgs/${owner.orgId}/api-keys/${keyId}`, { token: adminSession });
    expect(revoked.status).toBe(200);
    await eventually(
      'the revocation in the audit log',
      () => call(app.url, 'GET', `/orgs/${owner.orgId}/audit-log?action=KeyRevoked`, { token: owner.session }),
      (r) => r.body.entries?.length === 1,
    );
  }, 120_000);

  for (const [device, viewport] of DEVICES) {
    test(`Audit log (${device}): who did what, newest first; filters; CSV; who revoked a key`, async () => {
      const { app, owner } = rig;
      const { context, page, errors } = await rig.signedIn(viewport);
      await page.goto(`/dashboard/orgs/${owner.orgId}/audit`);
      await page.getByRole('heading', { name: /^Audit log of/ }).waitFor();
      const rows = page.locator('table.responsive tbody tr');
      const all = await call(app.url, 'GET', `/orgs/${owner.orgId}/audit-log`, { token: owner.session });
      expect(await rows.count()).toBe(all.body.entries.length);
      expect(await rows.first().textContent()).toContain('Revoked the key “Nightly batch”');
      expect(await rows.first().textContent()).toContain('ana@audit-screen.test');
      await screenshot(page, `60-audit-${device}`);
      // The header stays short on a phone (the tabs scroll sideways), and the current tab is in view.
      const header = await page.locator('header.topbar').boundingBox();
      expect(header!.height).toBeLessThanOrEqual(device === 'phone' ? 150 : 130);
      const tab = await page.getByRole('link', { name: 'Audit log' }).boundingBox();
      expect(tab!.x).toBeGreaterThanOrEqual(0);
      expect(tab!.x + tab!.width).toBeLessThanOrEqual(viewport.width);
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);

      await page.getByLabel('Action').selectOption('MemberAdded');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await page.waitForURL(/action=MemberAdded/);
      await page.waitForFunction(() => document.querySelectorAll('table.responsive tbody tr').length === 3);
      expect(await rows.allTextContents()).toEqual([
        expect.stringContaining('Added bo@audit-screen.test as a member'),
        expect.stringContaining('Added ana@audit-screen.test as an admin'),
        expect.stringContaining('Added owner@audit-screen.test as an owner'),
      ]);
      const download = page.waitForEvent('download');
      await page.getByRole('button', { name: 'Export CSV' }).click();
      const csv = await readFile((await (await download).path())!, 'utf8');
      expect(csv.trimEnd().split('\r\n')).toHaveLength(1 + 3);

      // The revoked key's page says when, and by whom.
      await page.goto(`/dashboard/orgs/${owner.orgId}/keys/${keyId}`);
      await page.locator('#key-facts').waitFor();
      expect(await page.locator('#key-facts').textContent()).toMatch(/Revoked.* by ana@audit-screen\.test/);
      expect(errors).toEqual([]);
      await context.close();
    }, 90_000);
  }

  test('a plain member has no Audit log tab, and is not shown the operator’s command', async () => {
    const { context, page } = await rig.signedIn({ width: 1280, height: 900 }, memberSession);
    await page.goto(`/dashboard/orgs/${rig.owner.orgId}/members`);
    await page.getByText('Plans are changed by an operator of this server').waitFor();
    expect(await page.getByRole('link', { name: 'Audit log' }).count()).toBe(0);
    expect(await page.locator('main').textContent()).not.toContain('npm run cli');
    await context.close();
  }, 60_000);

  for (const [device, viewport] of DEVICES) {
    test(`adding a member (${device}): the message says "an admin", the address as stored, and the log has it`, async () => {
      const { context, page, errors } = await rig.signedIn(viewport);
      await page.goto(`/dashboard/orgs/${rig.owner.orgId}/members`);
      const address = `Eve.${device}@Audit-Screen.TEST`;
      await page.getByLabel('E-mail address').fill(address);
      await page.getByLabel('Role', { exact: true }).selectOption('admin');
      await page.getByRole('button', { name: 'Add member' }).click();
      await page.getByText(`${address.toLowerCase()} is an admin of`).waitFor();
      await page.goto(`/dashboard/orgs/${rig.owner.orgId}/audit?action=MemberAdded`);
      await page.locator('table.responsive tbody tr').first().waitFor();
      expect(await page.locator('table.responsive tbody tr').first().textContent()).toContain(
        `Added ${address.toLowerCase()} as an admin`,
      );
      expect(errors).toEqual([]);
      await context.close();
    }, 60_000);
  }

  for (const [device, viewport] of DEVICES) {
    test(`removing a member (${device}): asked first, then gone, and the log says who`, async () => {
      const { context, page, errors } = await rig.signedIn(viewport);
      const address = `eve.${device}@audit-screen.test`;
      await page.goto(`/dashboard/orgs/${rig.owner.orgId}/members`);
      await page.getByRole('button', { name: `Remove ${address}` }).click();
      await page.getByRole('heading', { name: `Remove ${address}?` }).waitFor();
      await screenshot(page, `61-member-remove-${device}`);
      await page.getByRole('button', { name: 'Remove member' }).click();
      await page.getByText(`${address} is no longer a member of`).waitFor();
      expect(await page.getByRole('button', { name: `Remove ${address}` }).count()).toBe(0);
      // The owner's row has no Remove button.
      expect(await page.getByRole('button', { name: 'Remove owner@audit-screen.test' }).count()).toBe(0);
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
      const log = await call(rig.app.url, 'GET', `/orgs/${rig.owner.orgId}/audit-log?action=MemberRemoved`, {
        token: rig.owner.session,
      });
      expect(log.body.entries[0].summary).toBe(`Removed ${address} from the organization`);
      expect(errors).toEqual([]);
      await context.close();
    }, 60_000);
  }

  for (const [device, viewport] of DEVICES) {
    test(`a key name over 100 characters (${device}) is refused with a reason, never cut`, async () => {
      const { context, page } = await rig.signedIn(viewport);
      await page.goto(`/dashboard/orgs/${rig.owner.orgId}/keys`);
      const name = page.getByLabel('Key name');
      await name.fill('k'.repeat(120));
      expect(await name.inputValue()).toHaveLength(120);
      expect(await name.evaluate((input: HTMLInputElement) => input.validationMessage)).toBe(
        'A key name can be at most 100 characters; this one has 120.',
      );
      const before = await call(rig.app.url, 'GET', `/orgs/${rig.owner.orgId}/api-keys`, { token: rig.owner.session });
      await page.getByRole('button', { name: 'Create key' }).click();
      const after = await call(rig.app.url, 'GET', `/orgs/${rig.owner.orgId}/api-keys`, { token: rig.owner.session });
      expect(after.body.keys).toHaveLength(before.body.keys.length);
      await name.fill('k'.repeat(100));
      expect(await name.evaluate((input: HTMLInputElement) => input.validity.valid)).toBe(true);
      await context.close();
    }, 60_000);
  }
});
