import { meteredOrganization } from './metering-fixture.js';
import { SmtpSink } from './smtp-sink.js';
import { type TestApp, dropSchema, startTestApp } from './test-app.js';

export interface MeteredApp {
  readonly app: TestApp;
  readonly smtp: SmtpSink;
  readonly org: Awaited<ReturnType<typeof meteredOrganization>>;
  /** A live key of the organization, with every scope. */
  readonly key: string;
  /** Closes the app and the SMTP sink, and drops the app's schema. */
  stop(): Promise<void>;
}

/** The whole service (with an SMTP sink for sign-in mail) and a metered organization signed up through it. */
export async function startMeteredApp(env: Record<string, string> = {}, email = `org-${Date.now()}@a.test`) {
  const smtp = await SmtpSink.start();
  const app = await startTestApp({ env: { SMTP_URL: smtp.url, ...env } });
  const org = await meteredOrganization(app, smtp, email);
  const { key } = await org.key();
  const metered: MeteredApp = {
    app,
    smtp,
    org,
    key,
    stop: async () => {
      await app.close();
      await smtp.stop();
      await dropSchema(app.schema);
    },
  };
  return metered;
}
