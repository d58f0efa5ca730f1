import type { AuditedAction } from './audited-events.js';

/** What the audit log knows of one action: its event's data, and the names of its target before and after. */
export interface ActionFacts {
  readonly action: AuditedAction;
  readonly details: Readonly<Record<string, unknown>>;
  /** The target's name before this action (a rename's old name), null when it had none yet. */
  readonly nameBefore: string | null;
  /** A key's display prefix (from its creation). */
  readonly keyPrefix: string | null;
  /** A member's address (from their membership). */
  readonly memberEmail: string | null;
}

const number = (value: unknown) => Number(value).toLocaleString('en-US');
const quoted = (name: string | null | undefined) => (name ? `“${name}”` : 'an unnamed one');
const withArticle = (role: string) => `${/^[aeiou]/i.test(role) ? 'an' : 'a'} ${role}`;
const str = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** One line that says what was done, in the words of the dashboard ("Revoked the key “CI” (sk_live_Ab3dE9…)"). */
export function describeAction({ action, details, nameBefore, keyPrefix, memberEmail }: ActionFacts): string {
  const name = str(details.name);
  const limit = (what: string) =>
    details.monthly_credit_limit === null || details.monthly_credit_limit === undefined
      ? `Removed the monthly credit limit of ${what}`
      : `Set the monthly credit limit of ${what} to ${number(details.monthly_credit_limit)} credits`;
  const key = `the key ${quoted(nameBefore ?? name)}${keyPrefix ? ` (${keyPrefix}…)` : ''}`;
  const project = `the project ${quoted(nameBefore ?? name)}`;
  const rates = details.rate_limit_per_minute as { live?: unknown; test?: unknown } | undefined;
  const overage = details.overage as { credit_cap?: unknown; price_per_credit?: unknown } | null | undefined;
  const plan =
    `${str(details.plan) ?? 'custom'} plan: ${number(details.monthly_credit_allowance)} credits a month, ` +
    `${number(rates?.live)} live and ${number(rates?.test)} test requests a minute` +
    (overage
      ? `, overage up to ${number(overage.credit_cap)} credits at ${String(overage.price_per_credit)} each`
      : '');
  const limitOf = (scope: unknown) =>
    scope === 'organization' ? "the organization's allowance" : scope === 'project' ? project : key;
  switch (action) {
    case 'OrganizationCreated':
      return `Created the organization ${quoted(name)} on the ${plan}`;
    case 'PlanChanged':
      return `Changed the plan to the ${plan}`;
    case 'MemberAdded': {
      const email = str(details.email) ?? 'a user';
      const role = str(details.role) ?? 'member';
      const previous = str(details.previous_role);
      return previous
        ? `Changed the role of ${email} from ${previous} to ${role}`
        : `Added ${email} as ${withArticle(role)}`;
    }
    case 'MemberRemoved':
      return `Removed ${memberEmail ?? 'a member'} from the organization`;
    case 'ProjectCreated':
      return `Created the project ${quoted(name)}`;
    case 'ProjectRenamed':
      return `Renamed the project ${quoted(nameBefore)} to ${quoted(name)}`;
    case 'ProjectBudgetSet':
      return limit(project);
    case 'KeyCreated':
      return `Created the ${str(details.environment) ?? ''} key ${quoted(name)} (${str(details.prefix) ?? ''}…)`;
    case 'KeyRenamed':
      return `Renamed the key ${quoted(nameBefore)} to ${quoted(name)}`;
    case 'KeyRevoked':
      return `Revoked ${key}`;
    case 'KeyBudgetSet':
      return limit(key);
    case 'CreditsGranted': {
      const expires = str(details.expires_at);
      return (
        `Granted ${number(details.credits)} credits ${details.recurrence === 'monthly' ? 'every month' : 'once'}` +
        `${expires ? `, expiring ${expires.slice(0, 10)}` : ''}${str(details.note) ? ` (${str(details.note)})` : ''}`
      );
    }
    case 'CreditGrantRevoked':
      return `Revoked the credit grant ${String(details.grant_id).slice(0, 8)}…`;
    case 'AlertThresholdsSet': {
      const thresholds = Array.isArray(details.thresholds) ? details.thresholds.map((t) => `${String(t)} %`) : [];
      return `Set the alert thresholds of ${limitOf(details.scope)} to ${thresholds.join(', ') || 'none'}`;
    }
    case 'LedgerAdjusted':
      return (
        `Adjusted ${str(details.corrects_month) ?? 'a closed month'} by ${number(details.credits)} credits, booked in ` +
        `${str(details.month) ?? 'the open month'}: ${str(details.reason) ?? ''}`
      );
    case 'StatementIssued':
      return `Closed ${str(details.month) ?? 'a month'}: statement issued, ${number(details.billable_credits)} billable credits`;
  }
}
