import { ProjectionRunner } from '../projections/projection-runner.js';
import { toNewEvent } from '../src/event-store/domain-event.js';
import { EVENT_STORE, type EventStore } from '../src/event-store/event-store.port.js';
import { type KeyRevoked, keyStream } from '../src/keys/events/key.events.js';
import { KeyLookupService } from '../src/keys/key-lookup.service.js';
import { SmtpSink } from './support/smtp-sink.js';
import { type TestApp, call, dropSchema, setUpOrganization, startTestApp, useTestApp } from './support/test-app.js';

describe('two nodes sharing PostgreSQL and Redis', () => {
  let smtp: SmtpSink;
  let nodeA: TestApp;
  let nodeB: TestApp;

  beforeAll(async () => {
    smtp = await SmtpSink.start();
    nodeA = await startTestApp({ env: { SMTP_URL: smtp.url } });
    nodeB = await startTestApp({ schema: nodeA.schema, env: { SMTP_URL: smtp.url } });
  });
  afterAll(async () => {
    await nodeB.close();
    await nodeA.close();
    await smtp.stop();
    await dropSchema(nodeA.schema);
  });

  test('a key created on one node authenticates on the other at once', async () => {
    const { session, orgId } = await setUpOrganization(nodeB, smtp, 'create@nodes.test');
    const created = await call(nodeB.url, 'POST', `/orgs/${orgId}/api-keys`, {
      token: session,
      body: { name: 'cross' },
    });
    expect(created.status).toBe(201);
    expect((await nodeA.app.get(KeyLookupService).lookup(created.body.key))?.status).toBe('active');
  });

  test('a key revoked on one node is refused by the key lookup of the other node, which had it cached, before DELETE answers', async () => {
    const { session, orgId } = await setUpOrganization(nodeA, smtp, 'revoke@nodes.test');
    const created = await call(nodeA.url, 'POST', `/orgs/${orgId}/api-keys`, {
      token: session,
      body: { name: 'shared' },
    });
    const lookupOnA = nodeA.app.get(KeyLookupService);
    const lookupOnB = nodeB.app.get(KeyLookupService);
    expect((await lookupOnA.lookup(created.body.key))?.status).toBe('active');
    expect((await lookupOnB.lookup(created.body.key))?.status).toBe('active');

    const revoked = await call(nodeB.url, 'DELETE', `/orgs/${orgId}/api-keys/${created.body.id}`, { token: session });
    expect(revoked.status).toBe(200);
    expect((await lookupOnA.lookup(created.body.key))?.status).toBe('revoked');
    expect((await lookupOnB.lookup(created.body.key))?.status).toBe('revoked');
  });

  test('only one node runs the projector, and both read what it projected', async () => {
    const leaders = [nodeA, nodeB].filter((node) => node.app.get(ProjectionRunner).isLeader);
    expect(leaders).toHaveLength(1);
    const { session, orgId } = await setUpOrganization(nodeA, smtp, 'reads@nodes.test');
    const viaB = await call(nodeB.url, 'GET', `/orgs/${orgId}`, { token: session });
    expect(viaB.status).toBe(200);
    expect(viaB.body.plan).toBe('free');
  });
});

describe('one node without Redis', () => {
  const node = useTestApp({ redis: false });

  test('a revocation appended by another process (the operator CLI) evicts the cached key through the projector', async () => {
    const { session, orgId } = await setUpOrganization(node, node.smtp, 'cli@nodes.test');
    const created = await call(node.url, 'POST', `/orgs/${orgId}/api-keys`, {
      token: session,
      body: { name: 'cli-revoked' },
    });
    const lookup = node.app.get(KeyLookupService);
    expect((await lookup.lookup(created.body.key))?.status).toBe('active');

    const revoked: KeyRevoked = { type: 'KeyRevoked', data: { key_id: created.body.id, org_id: orgId } };
    const appended = await node.app
      .get<EventStore>(EVENT_STORE)
      .appendToStream(keyStream(created.body.id), [toNewEvent(revoked, { type: 'operator', id: 'test' })], 0n);
    await node.app.get(ProjectionRunner).waitFor(appended.position, 10_000);
    expect((await lookup.lookup(created.body.key))?.status).toBe('revoked');
  });
});
