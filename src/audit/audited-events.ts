/** The kinds of thing an audited action acts on. */
export const AUDIT_TARGET_KINDS = [
  'organization',
  'member',
  'project',
  'key',
  'grant',
  'statement',
  'adjustment',
] as const;
export type AuditTargetKind = (typeof AUDIT_TARGET_KINDS)[number];

/** The data field that names the thing an event acts on, and its kind (`scope`: the kind is the event's scope). */
interface Target {
  readonly kind: AuditTargetKind | 'scope';
  readonly id: string;
}

/** The control-plane events an organization's audit log shows, and what each acts on. */
export const AUDITED_EVENTS = {
  OrganizationCreated: { kind: 'organization', id: 'org_id' },
  PlanChanged: { kind: 'organization', id: 'org_id' },
  CreditsGranted: { kind: 'grant', id: 'grant_id' },
  CreditGrantRevoked: { kind: 'grant', id: 'grant_id' },
  MemberAdded: { kind: 'member', id: 'user_id' },
  MemberRemoved: { kind: 'member', id: 'user_id' },
  ProjectCreated: { kind: 'project', id: 'project_id' },
  ProjectRenamed: { kind: 'project', id: 'project_id' },
  ProjectBudgetSet: { kind: 'project', id: 'project_id' },
  KeyCreated: { kind: 'key', id: 'key_id' },
  KeyRenamed: { kind: 'key', id: 'key_id' },
  KeyRevoked: { kind: 'key', id: 'key_id' },
  KeyBudgetSet: { kind: 'key', id: 'key_id' },
  AlertThresholdsSet: { kind: 'scope', id: 'scope_id' },
  LedgerAdjusted: { kind: 'adjustment', id: 'adjustment_id' },
  StatementIssued: { kind: 'statement', id: 'month' },
} as const satisfies Record<string, Target>;

export type AuditedAction = keyof typeof AUDITED_EVENTS;
export const AUDITED_ACTIONS = Object.keys(AUDITED_EVENTS) as AuditedAction[];

/** The kind and id of what an audited event acts on, from its data. */
export function auditTarget(action: AuditedAction, data: Readonly<Record<string, unknown>>): Target {
  const target = AUDITED_EVENTS[action];
  const kind = target.kind === 'scope' ? (String(data.scope) as AuditTargetKind) : target.kind;
  return { kind, id: String(data[target.id] ?? '') };
}

/**
 * What the log keeps of an event's data: all of it but a key's hash, and of a statement only its month and what it
 * bills (the statement itself is at GET /orgs/{org_id}/statements/{month}).
 */
export function auditDetails(action: AuditedAction, data: Readonly<Record<string, unknown>>): Record<string, unknown> {
  if (action === 'StatementIssued') return { month: data.month, billable_credits: data.billable_credits };
  const { key_hash: _secret, ...details } = data;
  return details;
}
