/** Fast alert loops and a short retry schedule; webhooks may reach 127.0.0.1 (the test receivers), nothing else private. */
export const ALERT_TEST_ENV = {
  ALERTS_POLL_MS: '50',
  WEBHOOK_RETRY_DELAYS_MS: '300,600',
  WEBHOOK_TIMEOUT_MS: '1500',
  WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
};
