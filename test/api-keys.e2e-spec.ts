import { createHash } from 'node:crypto';
import { EVENT_STORE, type EventStore } from '../src/event-store/event-store.port.js';
import { KeyLookupService } from '../src/keys/key-lookup.service.js';
import { keyStream } from '../src/keys/events/key.events.js';
import { call, setUpOrganization, signIn, useTestApp } from './support/test-app.js';

describe('/orgs/{org_id}/api-keys', () => {
  let owner: Awaited<ReturnType<typeof setUpOrganization>>;
  let stranger: Awaited<ReturnType<typeof setUpOrganization>>;
  const keysPath = (orgId: string) => `/orgs/${orgId}/api-keys`;

  const app = useTestApp();
  beforeAll(async () => {
    owner = await setUpOrganization(app, app.smtp, 'owner@a.test');
    stranger = await setUpOrganization(app, app.smtp, 'stranger@b.test');
  });

  const createKey = (body: Record<string, unknown>, who = owner) =>
    call(app.url, 'POST', keysPath(who.orgId), { token: who.session, body: { project_id: who.projectId, ...body } });

  describe('201', () => {
    test('creates a live key, returned once, that authenticates at once', async () => {
      const created = await createKey({ name: 'Production' });
      expect(created.status).toBe(201);
      expect(created.body.key).toMatch(/^sk_live_[0-9A-Za-z]{32}$/);
      expect(created.body).toMatchObject({
        name: 'Production',
        environment: 'live',
        project_id: owner.projectId,
        status: 'active',
        scopes: ['search', 'verticals', 'extract', 'map', 'crawl', 'mcp', 'research'],
        depth_limit: null,
        last_used_at: null,
        revoked_at: null,
      });
      expect(created.body.key.startsWith(created.body.prefix)).toBe(true);
      expect(created.body.prefix).toMatch(/^sk_live_[0-9A-Za-z]{6}$/);
      const record = await app.app.get(KeyLookupService).lookup(created.body.key);
      expect(record).toMatchObject({
        keyId: created.body.id,
        orgId: owner.orgId,
        environment: 'live',
        status: 'active',
      });
    });

    test('a test key with chosen scopes and a basic-depth limit; the project defaults to the first one, "Default"', async () => {
      const created = await call(app.url, 'POST', keysPath(owner.orgId), {
        token: owner.session,
        body: {
          name: 'CI',
          environment: 'test',
          scopes: ['search', 'extract'],
          depth_limit: 'basic',
          api_key: 'ignored',
        },
      });
      expect(created.status).toBe(201);
      expect(created.body.key).toMatch(/^sk_test_/);
      const projects = await call(app.url, 'GET', `/orgs/${owner.orgId}/projects`, { token: owner.session });
      // The organization was created with "Default"; setUpOrganization then made "Main".
      expect(projects.body.projects.map((p: { name: string }) => p.name)).toEqual(['Default', 'Main']);
      expect(created.body).toMatchObject({
        project_id: projects.body.projects[0].id,
        scopes: ['search', 'extract'],
        depth_limit: 'basic',
      });
      const record = await app.app.get(KeyLookupService).lookup(created.body.key);
      expect(record).toMatchObject({ environment: 'test', scopes: ['search', 'extract'], depthLimit: 'basic' });
    });
  });

  describe('200', () => {
    test('the listing shows prefixes only: no plaintext, no hash', async () => {
      const created = await createKey({ name: 'Listed' });
      const listed = await call(app.url, 'GET', keysPath(owner.orgId), { token: owner.session });
      expect(listed.status).toBe(200);
      const entry = listed.body.keys.find((k: { id: string }) => k.id === created.body.id);
      expect(entry).toMatchObject({ name: 'Listed', prefix: created.body.prefix, status: 'active' });
      expect(entry.key).toBeUndefined();
      const text = JSON.stringify(listed.body);
      expect(text).not.toContain(created.body.key);
      expect(text).not.toContain(createHash('sha256').update(created.body.key).digest('hex'));
      expect(Object.keys(entry).sort()).toEqual(
        [
          'created_at',
          'depth_limit',
          'environment',
          'id',
          'last_used_at',
          'monthly_credit_limit',
          'name',
          'prefix',
          'project_id',
          'revoked_at',
          'scopes',
          'status',
        ].sort(),
      );
    });

    test('rename changes the name in place, as a KeyRenamed event', async () => {
      const created = await createKey({ name: 'Old name' });
      const renamed = await call(app.url, 'PATCH', `${keysPath(owner.orgId)}/${created.body.id}`, {
        token: owner.session,
        body: { name: '  New name ' },
      });
      expect(renamed.status).toBe(200);
      expect(renamed.body).toMatchObject({ id: created.body.id, name: 'New name', status: 'active' });
      const listed = await call(app.url, 'GET', keysPath(owner.orgId), { token: owner.session });
      expect(listed.body.keys.find((k: { id: string }) => k.id === created.body.id).name).toBe('New name');
      const events = await app.app.get<EventStore>(EVENT_STORE).readStream(keyStream(created.body.id));
      expect(events.map((e) => e.type)).toEqual(['KeyCreated', 'KeyRenamed']);
      expect(events[1]!.metadata).toMatchObject({ schema_version: 1, actor: { type: 'user' } });
    });

    test('revoke: the key stays listed as revoked and is refused by the key lookup at once; revoking again is harmless', async () => {
      const created = await createKey({ name: 'Doomed' });
      const lookup = app.app.get(KeyLookupService);
      expect((await lookup.lookup(created.body.key))?.status).toBe('active');
      const revoked = await call(app.url, 'DELETE', `${keysPath(owner.orgId)}/${created.body.id}`, {
        token: owner.session,
      });
      expect(revoked.status).toBe(200);
      expect(revoked.body).toMatchObject({ id: created.body.id, status: 'revoked' });
      expect(revoked.body.revoked_at).not.toBeNull();
      expect((await lookup.lookup(created.body.key))?.status).toBe('revoked');
      const listed = await call(app.url, 'GET', keysPath(owner.orgId), { token: owner.session });
      expect(listed.body.keys.find((k: { id: string }) => k.id === created.body.id).status).toBe('revoked');
      const again = await call(app.url, 'DELETE', `${keysPath(owner.orgId)}/${created.body.id}`, {
        token: owner.session,
      });
      expect(again.status).toBe(200);
      const events = await app.app.get<EventStore>(EVENT_STORE).readStream(keyStream(created.body.id));
      expect(events.map((e) => e.type)).toEqual(['KeyCreated', 'KeyRevoked']);
    });

    test('malformed and unknown keys are not found by the lookup', async () => {
      const lookup = app.app.get(KeyLookupService);
      expect(await lookup.lookup('not a key')).toBeNull();
      expect(await lookup.lookup('sk_live_short')).toBeNull();
      expect(await lookup.lookup('sk_live_' + 'Z'.repeat(32))).toBeNull();
    });
  });

  describe('400', () => {
    test.each([
      [{}, /name/],
      [{ name: '' }, /name/],
      [{ name: 'x'.repeat(101) }, /name/],
      [{ name: 'k', environment: 'prod' }, /environment/],
      [{ name: 'k', scopes: ['search', 'admin'] }, /scopes/],
      [{ name: 'k', scopes: 'search' }, /scopes/],
      [{ name: 'k', depth_limit: 'advanced' }, /depth_limit/],
      [{ name: 'k', project_id: 'nope' }, /project_id/],
      [{ name: 42 }, /name/],
    ])('%j is refused naming the field, and nothing is written', async (body, field) => {
      const before = await call(app.url, 'GET', keysPath(owner.orgId), { token: owner.session });
      const response = await call(app.url, 'POST', keysPath(owner.orgId), { token: owner.session, body });
      expect(response.status).toBe(400);
      expect(response.body.error).toMatch(field);
      expect(response.body.detail).toEqual({ error: response.body.error });
      const after = await call(app.url, 'GET', keysPath(owner.orgId), { token: owner.session });
      expect(after.body.keys).toHaveLength(before.body.keys.length);
    });

    test('a body that is not JSON, and an empty rename', async () => {
      const broken = await call(app.url, 'POST', keysPath(owner.orgId), { token: owner.session, body: '{"name":' });
      expect(broken.status).toBe(400);
      const created = await createKey({ name: 'Keep' });
      const empty = await call(app.url, 'PATCH', `${keysPath(owner.orgId)}/${created.body.id}`, {
        token: owner.session,
        body: { name: ' ' },
      });
      expect(empty.status).toBe(400);
      expect(empty.body.error).toMatch(/name/);
    });
  });

  describe('401', () => {
    test('key routes need a session token, never an API key', async () => {
      const created = await createKey({ name: 'Not a session' });
      for (const token of [undefined, created.body.key, 'sess_' + 'x'.repeat(43)]) {
        const response = await call(app.url, 'GET', keysPath(owner.orgId), token ? { token } : {});
        expect(response.status).toBe(401);
        expect(typeof response.body.error).toBe('string');
      }
      const viaHeader = await call(app.url, 'GET', keysPath(owner.orgId), {
        headers: { 'x-api-key': created.body.key },
      });
      expect(viaHeader.status).toBe(401);
    });
  });

  describe('404', () => {
    test('another organization is invisible: list, create, rename and revoke all answer 404 and change nothing', async () => {
      const victim = await createKey({ name: 'Victim' });
      const asStranger = { token: stranger.session };
      const list = await call(app.url, 'GET', keysPath(owner.orgId), asStranger);
      const create = await call(app.url, 'POST', keysPath(owner.orgId), {
        ...asStranger,
        body: { name: 'x', project_id: owner.projectId },
      });
      const rename = await call(app.url, 'PATCH', `${keysPath(owner.orgId)}/${victim.body.id}`, {
        ...asStranger,
        body: { name: 'pwned' },
      });
      const revoke = await call(app.url, 'DELETE', `${keysPath(owner.orgId)}/${victim.body.id}`, asStranger);
      for (const response of [list, create, rename, revoke]) {
        expect(response.status).toBe(404);
        expect(response.body.error).toBe('organization not found');
      }
      const viaOwnOrg = await call(app.url, 'DELETE', `${keysPath(stranger.orgId)}/${victim.body.id}`, asStranger);
      expect(viaOwnOrg.status).toBe(404);
      expect(viaOwnOrg.body.error).toBe('API key not found');
      const intoOwnOrgWithForeignProject = await call(app.url, 'POST', keysPath(stranger.orgId), {
        ...asStranger,
        body: { name: 'x', project_id: owner.projectId },
      });
      expect(intoOwnOrgWithForeignProject.status).toBe(404);
      const after = await call(app.url, 'GET', keysPath(owner.orgId), { token: owner.session });
      expect(after.body.keys.find((k: { id: string }) => k.id === victim.body.id)).toMatchObject({
        name: 'Victim',
        status: 'active',
      });
      const strangersKeys = await call(app.url, 'GET', keysPath(stranger.orgId), asStranger);
      expect(strangersKeys.body.keys).toEqual([]);
    });

    test('unknown and malformed ids', async () => {
      const unknownKey = await call(
        app.url,
        'DELETE',
        `${keysPath(owner.orgId)}/00000000-0000-4000-8000-000000000000`,
        { token: owner.session },
      );
      expect(unknownKey.status).toBe(404);
      const malformedKey = await call(app.url, 'PATCH', `${keysPath(owner.orgId)}/nope`, {
        token: owner.session,
        body: { name: 'n' },
      });
      expect(malformedKey.status).toBe(404);
      const malformedOrg = await call(app.url, 'GET', keysPath('nope'), { token: owner.session });
      expect(malformedOrg.status).toBe(404);
    });

    test('a plain member cannot manage keys, and a non-member sees no organization', async () => {
      const member = await signIn(app, app.smtp, 'member@a.test');
      const added = await call(app.url, 'POST', `/orgs/${owner.orgId}/members`, {
        token: owner.session,
        body: { email: 'member@a.test', role: 'member' },
      });
      expect(added.status).toBe(201);
      expect((await call(app.url, 'GET', keysPath(owner.orgId), { token: member })).status).toBe(200);
      expect((await call(app.url, 'POST', keysPath(owner.orgId), { token: member, body: { name: 'x' } })).status).toBe(
        404,
      );
      const orgs = await call(app.url, 'GET', '/orgs', { token: stranger.session });
      expect(orgs.body.organizations.map((o: { id: string }) => o.id)).toEqual([stranger.orgId]);
      expect((await call(app.url, 'GET', `/orgs/${owner.orgId}`, { token: stranger.session })).status).toBe(404);
      expect((await call(app.url, 'GET', `/orgs/${owner.orgId}/projects`, { token: stranger.session })).status).toBe(
        404,
      );
    });
  });

  describe('409', () => {
    test('a revoked key cannot be renamed', async () => {
      const created = await createKey({ name: 'Gone' });
      await call(app.url, 'DELETE', `${keysPath(owner.orgId)}/${created.body.id}`, { token: owner.session });
      const renamed = await call(app.url, 'PATCH', `${keysPath(owner.orgId)}/${created.body.id}`, {
        token: owner.session,
        body: { name: 'Back' },
      });
      expect(renamed.status).toBe(409);
      expect(renamed.body.error).toMatch(/revoked/);
    });
  });
});
