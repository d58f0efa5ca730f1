import type { Queryable } from '../../src/database/database.js';
import { metadataOf } from '../../src/event-store/domain-event.js';
import type { RecordedEvent } from '../../src/event-store/event-store.port.js';
import { AUDITED_EVENTS, type AuditedAction, auditDetails, auditTarget } from '../../src/audit/audited-events.js';
import type { Projector } from '../projector.js';

/**
 * The audit log: who did what to which thing of an organization, and when, one row per control-plane event, keyed by
 * its position. The row keeps the event's data (auditDetails: never a key's hash), and for a member added again the role they had (none after a removal).
 * Migration 011 filled it from the events appended before it (the same rows this projector writes; a row already
 * there is left as it is).
 */
export const auditLogProjector: Projector = {
  name: 'audit_log',
  tables: ['audit_log'],
  eventTypes: Object.keys(AUDITED_EVENTS),
  async apply(tx: Queryable, event: RecordedEvent) {
    const action = event.type as AuditedAction;
    const data = event.data as Record<string, unknown>;
    if (!(action in AUDITED_EVENTS) || typeof data.org_id !== 'string') return;
    const target = auditTarget(action, data);
    const { actor, occurred_at } = metadataOf(event);
    await tx.query(
      `INSERT INTO audit_log (commit_position, prepare_position, org_id, occurred_at, actor_type, actor_id, action,
         target_kind, target_id, details)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9,
         CASE WHEN $7 = 'MemberAdded' THEN $10::jsonb || jsonb_build_object('previous_role',
           (SELECT CASE WHEN a.action = 'MemberAdded' THEN a.details->>'role' END FROM audit_log a
             WHERE a.org_id = $3::uuid AND a.target_id = $9 AND a.action IN ('MemberAdded', 'MemberRemoved')
               AND (a.commit_position, a.prepare_position) < ($1::bigint, $2::bigint)
             ORDER BY a.commit_position DESC, a.prepare_position DESC LIMIT 1))
         ELSE $10::jsonb END)
       ON CONFLICT DO NOTHING`,
      [
        event.position.commit.toString(),
        event.position.prepare.toString(),
        data.org_id,
        occurred_at,
        actor.type,
        actor.id,
        action,
        target.kind,
        target.id,
        JSON.stringify(auditDetails(action, data)),
      ],
    );
  },
};
