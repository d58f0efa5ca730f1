import { READ_MODEL_PROJECTORS, READ_MODELS_CHECKPOINT } from '../projections/read-models/index.js';
import { verifyReadModels } from '../projections/verify.js';
import { Database } from '../src/database/database.js';
import { migrate } from '../src/database/migrator.js';
import { EVENT_STORE, type EventStore } from '../src/event-store/event-store.port.js';
import { addMember, call, setUpOrganization, useTestApp } from './support/test-app.js';

/**
 * A new member is told by mail who added them, to which organization, as what; owners and admins remove members
 * (DELETE /orgs/{org_id}/members/{user_id}), whose sessions stop reaching the organization before the answer.
 */
describe('inviting and removing members', () => {
  let owner: Awaited<ReturnType<typeof setUpOrganization>>;
  let stranger: Awaited<ReturnType<typeof setUpOrganization>>;

  const members = async () =>
    (await call(app.url, 'GET', `/orgs/${owner.orgId}/members`, { token: owner.session })).body.members as {
      user_id: string;
      email: string;
      role: string;
    }[];
  const userOf = async (email: string) => (await members()).find((m) => m.email === email)!.user_id;
  const remove = (userId: string, token = owner.session, orgId = owner.orgId) =>
    call(app.url, 'DELETE', `/orgs/${orgId}/members/${userId}`, { token });

  const app = useTestApp();
  beforeAll(async () => {
    owner = await setUpOrganization(app, app.smtp, 'owner@removal.test');
    stranger = await setUpOrganization(app, app.smtp, 'other@removal.test');
  });

  test('a new member gets one invitation mail naming the organization, the role and who added them', async () => {
    await addMember(app, app.smtp, owner, 'Ivy@Removal.TEST', 'admin');
    const invitation = await app.smtp.waitForMail('ivy@removal.test', 10_000, /You were added/);
    expect(invitation.subject).toBe('You were added to owner@removal.test org');
    expect(invitation.text).toContain('owner@removal.test added you to owner@removal.test org as an admin.');
    expect(invitation.text).toContain('Sign in to the dashboard with this address (ivy@removal.test)');
    // A role change is no new membership: no second mail.
    const before = app.smtp.messages.filter((m) => m.subject?.startsWith('You were added')).length;
    const changed = await call(app.url, 'POST', `/orgs/${owner.orgId}/members`, {
      token: owner.session,
      body: { email: 'ivy@removal.test', role: 'member' },
    });
    expect(changed.status).toBe(201);
    expect(app.smtp.messages.filter((m) => m.subject?.startsWith('You were added')).length).toBe(before);
  });

  test('an owner removes a member: their session no longer reaches the organization, and the audit log says who', async () => {
    const session = await addMember(app, app.smtp, owner, 'leo@removal.test');
    expect((await call(app.url, 'GET', `/orgs/${owner.orgId}`, { token: session })).status).toBe(200);
    const userId = await userOf('leo@removal.test');
    const removed = await remove(userId);
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ user_id: userId, removed: true });
    expect((await members()).map((m) => m.email)).not.toContain('leo@removal.test');
    const refused = await call(app.url, 'GET', `/orgs/${owner.orgId}`, { token: session });
    expect(refused.status).toBe(404);
    expect((await remove(userId)).status).toBe(404);
    const log = await call(app.url, 'GET', `/orgs/${owner.orgId}/audit-log?action=MemberRemoved`, {
      token: owner.session,
    });
    expect(log.body.entries[0]).toMatchObject({
      summary: 'Removed leo@removal.test from the organization',
      actor: { email: 'owner@removal.test' },
    });
    // Added again later, they are a member again: a new membership, not a role change.
    await addMember(app, app.smtp, owner, 'leo@removal.test');
    expect((await members()).map((m) => m.email)).toContain('leo@removal.test');
    const again = await call(app.url, 'GET', `/orgs/${owner.orgId}/audit-log?action=MemberAdded&limit=1`, {
      token: owner.session,
    });
    expect(again.body.entries[0].summary).toBe('Added leo@removal.test as a member');
  });

  test('an admin removes a member; a plain member removes no one; the owner stays', async () => {
    const admin = await addMember(app, app.smtp, owner, 'ada@removal.test', 'admin');
    const plain = await addMember(app, app.smtp, owner, 'max@removal.test');
    const ownerId = await userOf('owner@removal.test');
    const byPlain = await remove(await userOf('ada@removal.test'), plain);
    expect(byPlain.status).toBe(404);
    const ownerStays = await remove(ownerId, admin);
    expect(ownerStays.status).toBe(409);
    expect(ownerStays.body.error).toBe("the organization's owner cannot be removed");
    expect((await remove(await userOf('max@removal.test'), admin)).status).toBe(200);
  });

  test('the audit log rebuilt from the events, and by migration 011, reads the same', async () => {
    const db = app.app.get(Database);
    const store = app.app.get<EventStore>(EVENT_STORE);
    const options = { checkpointName: READ_MODELS_CHECKPOINT, projectors: READ_MODEL_PROJECTORS };
    expect((await verifyReadModels(db, store, options)).differences).toEqual([]);
    const log = async () =>
      (await call(app.url, 'GET', `/orgs/${owner.orgId}/audit-log?limit=500`, { token: owner.session })).body;
    const before = await log();
    await db.query('DROP TABLE audit_log');
    await db.query(`DELETE FROM schema_migrations WHERE migration_set = 'readModels' AND name = '011_audit_log.sql'`);
    expect(await migrate(db.pool, app.schema, ['readModels'])).toEqual(['readModels/011_audit_log.sql']);
    expect(await log()).toEqual(before);
  });

  test('an unknown, malformed or other organization’s user, or another organization, is a 404', async () => {
    const strangerId = (
      (await call(app.url, 'GET', `/orgs/${stranger.orgId}/members`, { token: stranger.session })).body.members as {
        user_id: string;
      }[]
    )[0]!.user_id;
    for (const userId of ['00000000-0000-4000-8000-000000000000', 'nope', strangerId, strangerId.toUpperCase()]) {
      const response = await remove(userId);
      expect(response.status).toBe(404);
      expect(response.body.error).toBe('member not found');
    }
    const theirs = await remove(strangerId, owner.session, stranger.orgId);
    expect(theirs.status).toBe(404);
    expect(theirs.body.error).toBe('organization not found');
  });
});
