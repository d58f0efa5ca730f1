import { Database } from '../src/database/database.js';
import { EVENT_STORE, type EventStore } from '../src/event-store/event-store.port.js';
import { organizationStream } from '../src/organizations/events/organization.events.js';
import { projectStream } from '../src/projects/events/project.events.js';
import { READ_MODEL_PROJECTORS, READ_MODELS_CHECKPOINT } from '../projections/read-models/index.js';
import { rebuildReadModels } from '../projections/rebuild.js';
import { verifyReadModels } from '../projections/verify.js';
import { call, setUpOrganization, signIn, useTestApp } from './support/test-app.js';

/** PATCH /orgs/{org_id}/projects/{project_id}: renaming a project, as a ProjectRenamed event. */
describe('/orgs/{org_id}/projects/{project_id}', () => {
  let owner: Awaited<ReturnType<typeof setUpOrganization>>;
  let stranger: Awaited<ReturnType<typeof setUpOrganization>>;
  const projectPath = (orgId: string, projectId: string) => `/orgs/${orgId}/projects/${projectId}`;
  const rename = (name: unknown, who = owner, projectId = who.projectId) =>
    call(app.url, 'PATCH', projectPath(who.orgId, projectId), { token: who.session, body: { name } });
  const projects = async (who = owner) =>
    (await call(app.url, 'GET', `/orgs/${who.orgId}/projects`, { token: who.session })).body.projects as {
      id: string;
      name: string;
    }[];
  const nameOf = async (projectId: string, who = owner) => (await projects(who)).find((p) => p.id === projectId)?.name;
  const events = (projectId: string) => app.app.get<EventStore>(EVENT_STORE).readStream(projectStream(projectId));

  const app = useTestApp();
  beforeAll(async () => {
    owner = await setUpOrganization(app, app.smtp, 'owner@projects.test');
    stranger = await setUpOrganization(app, app.smtp, 'stranger@projects.test');
  });

  describe('200', () => {
    test('a new organization comes with a project "Default": a ProjectCreated by its creator, a key needs nothing more', async () => {
      const session = await signIn(app, app.smtp, 'fresh@projects.test');
      const created = await call(app.url, 'POST', '/orgs', { token: session, body: { name: 'Fresh' } });
      expect(created.status).toBe(201);
      const orgId = created.body.id as string;
      const listed = await projects({ ...owner, orgId, session });
      expect(listed.map((p) => p.name)).toEqual(['Default']);
      expect(created.body.default_project_id).toBe(listed[0]!.id);
      const stream = await events(listed[0]!.id);
      expect(stream.map((e) => e.type)).toEqual(['ProjectCreated']);
      expect(stream[0]!.data).toEqual({ project_id: listed[0]!.id, org_id: orgId, name: 'Default' });
      const [orgCreated] = await app.app.get<EventStore>(EVENT_STORE).readStream(organizationStream(orgId));
      expect(stream[0]!.metadata).toMatchObject({ actor: { type: 'user', id: orgCreated!.data.created_by } });
      // The first key, in one step: its project is the default one.
      const key = await call(app.url, 'POST', `/orgs/${orgId}/api-keys`, { token: session, body: { name: 'first' } });
      expect(key.status).toBe(201);
      expect(key.body.project_id).toBe(listed[0]!.id);
    });

    test('renames in place (trimmed), as a ProjectRenamed event; the listing shows it at once', async () => {
      const renamed = await rename('  Backend services ');
      expect(renamed.status).toBe(200);
      expect(renamed.body).toEqual({
        id: owner.projectId,
        org_id: owner.orgId,
        name: 'Backend services',
        monthly_credit_limit: null,
        created_at: expect.any(String),
      });
      expect(await nameOf(owner.projectId)).toBe('Backend services');
      const stream = await events(owner.projectId);
      expect(stream.map((e) => e.type)).toEqual(['ProjectCreated', 'ProjectRenamed']);
      expect(stream[1]!.data).toEqual({ project_id: owner.projectId, org_id: owner.orgId, name: 'Backend services' });
      expect(stream[1]!.metadata).toMatchObject({ schema_version: 1, actor: { type: 'user' } });
    });

    test('the same name again appends nothing', async () => {
      const before = (await events(owner.projectId)).length;
      const again = await rename(await nameOf(owner.projectId));
      expect(again.status).toBe(200);
      expect((await events(owner.projectId)).length).toBe(before);
    });

    test('usage shows the new name; the ledger the name charged under, the new one beside it', async () => {
      const key = await call(app.url, 'POST', `/orgs/${owner.orgId}/api-keys`, {
        token: owner.session,
        body: { name: 'k', project_id: owner.projectId },
      });
      expect((await call(app.url, 'POST', '/search', { token: key.body.key, body: { query: 'x' } })).status).toBe(200);
      expect((await rename('Renamed after use')).status).toBe(200);
      for (const deadline = Date.now() + 15_000; ;) {
        const ledger = await call(app.url, 'GET', `/orgs/${owner.orgId}/ledger`, { token: owner.session });
        if (ledger.body.entries.length === 1) {
          expect(ledger.body.entries[0]).toMatchObject({
            project_name: 'Backend services',
            project_name_now: 'Renamed after use',
          });
          break;
        }
        if (Date.now() > deadline) throw new Error('the charge never reached the ledger');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const usage = await call(app.url, 'GET', `/orgs/${owner.orgId}/usage`, { token: owner.session });
      expect(usage.body.by_project.map((p: { name: string }) => p.name)).toEqual(['Renamed after use']);
    });

    test('a rebuild of the read models from the events keeps the new name, and verify finds them identical', async () => {
      expect((await rename('Named before the rebuild')).status).toBe(200);
      const db = app.app.get(Database);
      const store = app.app.get<EventStore>(EVENT_STORE);
      const options = { checkpointName: READ_MODELS_CHECKPOINT, projectors: READ_MODEL_PROJECTORS };
      expect((await verifyReadModels(db, store, options)).ok).toBe(true);
      await db.query('UPDATE projects SET name = $2 WHERE project_id = $1', [owner.projectId, 'corrupted']);
      expect((await verifyReadModels(db, store, options)).ok).toBe(false);
      await rebuildReadModels(db, store, options);
      expect(await nameOf(owner.projectId)).toBe('Named before the rebuild');
      expect((await verifyReadModels(db, store, options)).ok).toBe(true);
    });
  });

  describe('400', () => {
    test.each([
      ['an empty name', { name: '' }],
      ['only spaces', { name: '   ' }],
      ['101 characters', { name: 'x'.repeat(101) }],
      ['a number', { name: 42 }],
    ])('%s is refused naming the field, and nothing is written', async (_what, body) => {
      const before = await events(owner.projectId);
      const response = await call(app.url, 'PATCH', projectPath(owner.orgId, owner.projectId), {
        token: owner.session,
        body,
      });
      expect(response.status).toBe(400);
      expect(response.body.error).toMatch(/name/);
      expect(response.body.detail).toEqual({ error: response.body.error });
      expect(await events(owner.projectId)).toEqual(before);
    });

    test('an empty body is no change: 200, nothing written', async () => {
      const before = await events(owner.projectId);
      const response = await call(app.url, 'PATCH', projectPath(owner.orgId, owner.projectId), {
        token: owner.session,
        body: {},
      });
      expect(response.status).toBe(200);
      expect(await events(owner.projectId)).toEqual(before);
    });

    test('a body that is not JSON', async () => {
      const broken = await call(app.url, 'PATCH', projectPath(owner.orgId, owner.projectId), {
        token: owner.session,
        body: '{"name":',
      });
      expect(broken.status).toBe(400);
    });

    test('100 characters is the longest name', async () => {
      expect((await rename('y'.repeat(100))).status).toBe(200);
    });
  });

  describe('401', () => {
    test('a session token is required, never an API key', async () => {
      const key = await call(app.url, 'POST', `/orgs/${owner.orgId}/api-keys`, {
        token: owner.session,
        body: { name: 'not a session', project_id: owner.projectId },
      });
      for (const token of [undefined, key.body.key as string, 'sess_' + 'x'.repeat(43)]) {
        const response = await call(app.url, 'PATCH', projectPath(owner.orgId, owner.projectId), {
          ...(token ? { token } : {}),
          body: { name: 'pwned' },
        });
        expect(response.status).toBe(401);
        expect(typeof response.body.error).toBe('string');
      }
      expect(await nameOf(owner.projectId)).not.toBe('pwned');
    });
  });

  describe('403', () => {
    test('the session cookie from another site is refused (CSRF)', async () => {
      const response = await call(app.url, 'PATCH', projectPath(owner.orgId, owner.projectId), {
        body: { name: 'pwned' },
        headers: { cookie: `session=${owner.session}`, origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
      });
      expect(response.status).toBe(403);
      expect(await nameOf(owner.projectId)).not.toBe('pwned');
    });
  });

  describe('404', () => {
    test("another organization's project is invisible, under its organization and under one's own", async () => {
      const before = await events(owner.projectId);
      const inOtherOrg = await rename('pwned', stranger, owner.projectId);
      expect(inOtherOrg.status).toBe(404);
      expect(inOtherOrg.body.error).toBe('project not found');
      const aimedAtOtherOrg = await call(app.url, 'PATCH', projectPath(owner.orgId, owner.projectId), {
        token: stranger.session,
        body: { name: 'pwned' },
      });
      expect(aimedAtOtherOrg.status).toBe(404);
      expect(aimedAtOtherOrg.body.error).toBe('organization not found');
      expect(await events(owner.projectId)).toEqual(before);
      expect(await nameOf(stranger.projectId, stranger)).toBe('Main');
    });

    test('unknown, malformed and upper-cased project ids', async () => {
      for (const projectId of ['00000000-0000-4000-8000-000000000000', 'nope', owner.projectId.toUpperCase()]) {
        const response = await rename('n', owner, projectId);
        expect({ projectId, status: response.status }).toEqual({ projectId, status: 404 });
      }
    });

    test('a plain member cannot rename (as for every project and key write), but reads the projects', async () => {
      const member = await signIn(app, app.smtp, 'member@projects.test');
      const added = await call(app.url, 'POST', `/orgs/${owner.orgId}/members`, {
        token: owner.session,
        body: { email: 'member@projects.test', role: 'member' },
      });
      expect(added.status).toBe(201);
      const refused = await call(app.url, 'PATCH', projectPath(owner.orgId, owner.projectId), {
        token: member,
        body: { name: 'by a member' },
      });
      expect(refused.status).toBe(404);
      expect(await nameOf(owner.projectId)).not.toBe('by a member');
      const admin = await signIn(app, app.smtp, 'admin@projects.test');
      await call(app.url, 'POST', `/orgs/${owner.orgId}/members`, {
        token: owner.session,
        body: { email: 'admin@projects.test', role: 'admin' },
      });
      const byAdmin = await call(app.url, 'PATCH', projectPath(owner.orgId, owner.projectId), {
        token: admin,
        body: { name: 'by an admin' },
      });
      expect(byAdmin.status).toBe(200);
      expect(await nameOf(owner.projectId)).toBe('by an admin');
    });
  });
});
