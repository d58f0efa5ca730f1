import type { DomainEvent } from '../../event-store/domain-event.js';

/** What a threshold is a percentage of: the organization's allowance, a project's or a key's monthly limit. */
export type AlertScope = 'organization' | 'project' | 'key';
export const ALERT_SCOPES: readonly AlertScope[] = ['organization', 'project', 'key'];

/** Percentages of a limit at which an alert fires, when an organization has not set its own. */
export const DEFAULT_THRESHOLDS: readonly number[] = [50, 80, 100];

export const alertThresholdsStream = (orgId: string) => `alert-thresholds-${orgId}`;

/**
 * The one stream of a crossing: appended with expected revision "no stream", so a second writer (another node, a
 * replay after a restart) is refused and the crossing is recorded exactly once.
 */
export const alertCrossedStream = (
  orgId: string,
  scope: AlertScope,
  scopeId: string,
  month: string,
  threshold: number,
) => `alert-${orgId}-${scope}-${scopeId}-${month}-${threshold}`;

/** The thresholds of one limit (`scope_id`: the organization, project or key), replacing the ones before. */
export type AlertThresholdsSet = DomainEvent<
  'AlertThresholdsSet',
  { org_id: string; scope: AlertScope; scope_id: string; thresholds: number[] }
>;

/** A month's usage of a limit reached `threshold` % of it. */
export type AlertThresholdCrossed = DomainEvent<
  'AlertThresholdCrossed',
  {
    org_id: string;
    scope: AlertScope;
    scope_id: string;
    billing_month: string;
    threshold: number;
    credits_used: number;
    credits_limit: number;
  }
>;
