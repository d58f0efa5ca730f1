/** The kinds of thing an audited action acts on. */
export const AUDIT_TARGET_KINDS = ['organization', 'member', 'project', 'key'] as const;
export type AuditTargetKind = (typeof AUDIT_TARGET_KINDS)[number];

/** The control-plane events an organization's audit log shows, and the kind of thing each acts on. */
export const AUDITED_EVENTS = {
  OrganizationCreated: 'organization',
  PlanChanged: 'organization',
  MemberAdded: 'member',
  MemberRemoved: 'member',
  ProjectCreated: 'project',
  ProjectRenamed: 'project',
  ProjectBudgetSet: 'project',
  KeyCreated: 'key',
  KeyRenamed: 'key',
  KeyRevoked: 'key',
  KeyBudgetSet: 'key',
} as const satisfies Record<string, AuditTargetKind>;

export type AuditedAction = keyof typeof AUDITED_EVENTS;
export const AUDITED_ACTIONS = Object.keys(AUDITED_EVENTS) as AuditedAction[];

/** The field of an event's data that names the thing it acts on. */
export const TARGET_ID_FIELD: Record<AuditTargetKind, string> = {
  organization: 'org_id',
  member: 'user_id',
  project: 'project_id',
  key: 'key_id',
};
