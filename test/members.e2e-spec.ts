import { call, setUpOrganization, useTestApp } from './support/test-app.js';

/** Members are added by e-mail address: validated and normalised exactly as magic-link sign-in does. */
describe('POST /orgs/{org_id}/members', () => {
  let owner: Awaited<ReturnType<typeof setUpOrganization>>;

  const members = async () =>
    (await call(app.url, 'GET', `/orgs/${owner.orgId}/members`, { token: owner.session })).body.members as {
      email: string;
    }[];
  const add = (email: unknown) =>
    call(app.url, 'POST', `/orgs/${owner.orgId}/members`, { token: owner.session, body: { email, role: 'member' } });

  const app = useTestApp();
  beforeAll(async () => {
    owner = await setUpOrganization(app, app.smtp, 'owner@members.test');
  });

  describe('201', () => {
    test('an address is trimmed and lower-cased, as sign-in does', async () => {
      const added = await add('  New.Member@Example.TEST ');
      expect(added.status).toBe(201);
      expect(added.body.email).toBe('new.member@example.test');
      expect((await members()).map((m) => m.email)).toContain('new.member@example.test');
    });
  });

  describe('400', () => {
    test.each([
      ['text that is no address', 'not an email'],
      ['no domain', 'someone@'],
      ['no top-level domain', 'someone@localhost'],
      ['two @', 'a@b@example.test'],
      ['over 254 characters', `${'a'.repeat(64)}@${'b'.repeat(190)}.example.test`],
    ])('%s is refused with an error naming the field, and no member is added', async (_what, email) => {
      const before = await members();
      const refused = await add(email);
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatch(/email/);
      expect(refused.body.detail.error).toBe(refused.body.error);
      expect(await members()).toEqual(before);
      // Sign-in refuses the same address the same way.
      expect((await call(app.url, 'POST', '/auth/magic-link', { body: { email } })).status).toBe(400);
    });
  });
});
