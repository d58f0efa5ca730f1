import type { OutgoingMail } from '../auth/mailer.service.js';
import type { AlertPayload } from './alert-outbox.js';

const LIMIT_NAMES = {
  organization: "the organization's monthly allowance",
  project: "a project's monthly limit",
  key: "an API key's monthly limit",
};

/** The e-mail to an owner for one crossing. */
export function alertMail(to: string, payload: AlertPayload, dashboardUrl: string): OutgoingMail {
  const d = payload.data;
  const what = LIMIT_NAMES[d.scope];
  const subject = `Usage alert: ${d.threshold}% of ${what} (${d.billing_month})`;
  const text = [
    `Credits used in ${d.billing_month} reached ${d.threshold}% of ${what}: ${d.credits_used} of ${d.credits_limit}.`,
    `Organization: ${d.org_id}`,
    d.scope === 'organization' ? null : `${d.scope === 'key' ? 'API key' : 'Project'}: ${d.scope_id}`,
    `Alert id: ${payload.id}`,
    `Usage and thresholds: ${dashboardUrl}`,
  ]
    .filter((line) => line !== null)
    .join('\n');
  const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const html = text
    .split('\n')
    .map((line) => `<p>${escape(line)}</p>`)
    .join('');
  return { to, subject, text, html };
}
