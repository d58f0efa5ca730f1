import { DocumentIndexWriter } from '../../src/documents/document-index.writer.js';
import { corpusDocuments } from '../fixtures/search/corpus.js';
import { changePlan, meteredOrganization } from './metering-fixture.js';
import { type ResearchSources, startResearchSources } from './research-sources.js';
import { SmtpSink } from './smtp-sink.js';
import { type Json, type TestApp, call, dropSchema, startTestApp } from './test-app.js';

export interface ResearchApp {
  readonly app: TestApp;
  readonly smtp: SmtpSink;
  readonly sources: ResearchSources;
  readonly org: Awaited<ReturnType<typeof meteredOrganization>>;
  readonly key: string;
  submit(body: Record<string, unknown>, options?: { key?: string; headers?: Record<string, string> }): Promise<Json>;
  get(requestId: string, options?: { key?: string; query?: string }): Promise<Json>;
  /** Polls GET /research/{id} until the task is completed or failed. */
  settled(requestId: string, options?: { key?: string; timeoutMs?: number }): Promise<Json>;
  stop(): Promise<void>;
}

/**
 * The whole service with research sources on 127.0.0.1: the marine-energy pages, found through a SearXNG-format
 * upstream and fetched through the fetcher (FETCH_ALLOW_HOSTS lets it reach 127.0.0.1), and with `corpus` the search
 * fixture corpus in the local index; an organization on the enterprise plan with a live key.
 */
export async function startResearchApp(
  env: Record<string, string> = {},
  options: { corpus?: boolean } = {},
): Promise<ResearchApp> {
  const smtp = await SmtpSink.start();
  const sources = await startResearchSources();
  const app = await startTestApp({
    env: {
      SMTP_URL: smtp.url,
      SEARXNG_URL: sources.searxngUrl,
      FETCH_ALLOW_HOSTS: '127.0.0.1,localhost',
      RESEARCH_POLL_MS: '100',
      ...env,
    },
  });
  const org = await meteredOrganization(app, smtp, `research-${Date.now()}@a.test`);
  await changePlan(app, org.orgId, { plan: 'enterprise' });
  const { key } = await org.key();
  if (options.corpus) await app.app.get(DocumentIndexWriter).upsert(corpusDocuments(new Date()));
  const get = (requestId: string, options: { key?: string; query?: string } = {}) =>
    call(app.url, 'GET', `/research/${requestId}${options.query ? `?${options.query}` : ''}`, {
      token: options.key ?? key,
    });
  return {
    app,
    smtp,
    sources,
    org,
    key,
    submit: (body, options = {}) =>
      call(app.url, 'POST', '/research', { body, token: options.key ?? key, headers: options.headers ?? {} }),
    get,
    settled: async (requestId, options = {}) => {
      const deadline = Date.now() + (options.timeoutMs ?? 20_000);
      for (;;) {
        const answer = await get(requestId, { ...options, query: 'include_usage=true' });
        if (answer.status !== 202) return answer;
        if (Date.now() > deadline) throw new Error(`research ${requestId} still ${answer.body.status}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    stop: async () => {
      await app.close();
      await smtp.stop();
      await sources.stop();
      await dropSchema(app.schema);
    },
  };
}
