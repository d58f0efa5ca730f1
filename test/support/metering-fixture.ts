import { CommandBus } from '@nestjs/cqrs';
import { ProjectionRunner } from '../../projections/projection-runner.js';
import { EVENT_STORE, type EventStore, type RecordedEvent } from '../../src/event-store/event-store.port.js';
import type { CreditsCharged } from '../../src/metering/events/credits-charged.event.js';
import { ChangePlanCommand } from '../../src/organizations/commands/change-plan.command.js';
import { GrantCreditsCommand } from '../../src/organizations/commands/grant-credits.command.js';
import type { Overage } from '../../src/organizations/events/organization.events.js';
import { type PlanName, planLimits } from '../../src/organizations/plans.js';
import type { SmtpSink } from './smtp-sink.js';
import { type TestApp, call, setUpOrganization } from './test-app.js';

/** An organization with a signed-in owner, a project and keys, ready for data-plane calls. */
export async function meteredOrganization(app: TestApp, smtp: SmtpSink, email: string) {
  const org = await setUpOrganization(app, smtp, email);
  const key = async (body: Record<string, unknown> = {}) => {
    const created = await call(app.url, 'POST', `/orgs/${org.orgId}/api-keys`, {
      token: org.session,
      body: { name: 'key', project_id: org.projectId, ...body },
    });
    if (created.status !== 201) throw new Error(`key create answered ${created.status}`);
    return { id: created.body.id as string, key: created.body.key as string };
  };
  return { ...org, key };
}

/** A plan change through the real command, applied once projected. */
export async function changePlan(
  app: TestApp,
  orgId: string,
  overrides: { plan?: PlanName; allowance?: number; rpmLive?: number; rpmTest?: number; overage?: Overage },
): Promise<void> {
  const plan = overrides.plan ?? 'free';
  const actor = { type: 'operator', id: 'test' } as const;
  const { position } = await app.app
    .get(CommandBus)
    .execute(new ChangePlanCommand(orgId, plan, planLimits(plan, overrides), actor, overrides.overage ?? null));
  await app.app.get(ProjectionRunner).waitFor(position, 10_000);
}

/** Every CreditsCharged event of an organization, in store order. */
export async function chargesOf(app: TestApp, orgId: string): Promise<CreditsCharged['data'][]> {
  const store = app.app.get<EventStore>(EVENT_STORE);
  const month = new Date().toISOString().slice(0, 7);
  const events: RecordedEvent[] = await store.readStream(`charges-${orgId}-${month}`);
  return events.filter((e) => e.type === 'CreditsCharged').map((e) => e.data as unknown as CreditsCharged['data']);
}

/** Credits granted through the real command, applied once projected; returns the grant's id. */
export async function grantCredits(
  app: TestApp,
  orgId: string,
  terms: { credits: number; monthly?: boolean; expiresAt?: Date; note?: string },
): Promise<string> {
  const { grantId, position } = await app.app.get(CommandBus).execute(
    new GrantCreditsCommand(
      orgId,
      {
        credits: terms.credits,
        recurrence: terms.monthly ? 'monthly' : 'once',
        expiresAt: terms.expiresAt ?? null,
        note: terms.note ?? null,
      },
      { type: 'operator', id: 'test' },
    ),
  );
  await app.app.get(ProjectionRunner).waitFor(position, 10_000);
  return grantId;
}
