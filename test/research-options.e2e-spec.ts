import { Database } from '../src/database/database.js';
import { type ResearchApp, startResearchApp } from './support/research-app.js';

const INPUT = 'How do tides, waves and storms affect harbours and marine energy?';
const HARBOUR_NEWS = 'harbour-news.example.co.uk';

const hostsOf = (sources: { url: string }[]) => [...new Set(sources.map((s) => new URL(s.url).hostname))].sort();
/** The report's quoted sentences: one bullet line each. */
const quotedLines = (report: string) => report.split('\n').filter((line) => line.startsWith('- ')).length;

/**
 * POST /research's include_domains, exclude_domains and output_length. The task searches both the local index (the
 * search fixture corpus: the harbour pages of harbour-news.example.co.uk answer this input) and a SearXNG-format
 * upstream listing the marine-energy pages on 127.0.0.1, so that a task without options draws on both sites.
 */
describe('research: include_domains, exclude_domains and output_length', () => {
  let r: ResearchApp;
  beforeAll(async () => {
    r = await startResearchApp({}, { corpus: true });
  }, 60_000);
  afterAll(async () => {
    await r?.stop();
  });

  const research = async (options: Record<string, unknown>) => {
    const submitted = await r.submit({ input: INPUT, model: 'mini', ...options });
    expect(submitted.status).toBe(200);
    const done = await r.settled(submitted.body.request_id);
    expect(done.body.status).toBe('completed');
    return {
      id: submitted.body.request_id as string,
      content: done.body.content as string,
      sources: done.body.sources,
    };
  };

  test('without them, the sources come from both sites', async () => {
    const { sources } = await research({});
    expect(hostsOf(sources)).toEqual(['127.0.0.1', HARBOUR_NEWS]);
  });

  test('exclude_domains: no source from an excluded site, and its pages are not even fetched', async () => {
    const fetchedBefore = r.sources.site.requests.length;
    const upstream = await research({ exclude_domains: ['127.0.0.1'] });
    expect(hostsOf(upstream.sources)).toEqual([HARBOUR_NEWS]);
    expect(upstream.content).not.toContain('127.0.0.1');
    expect(r.sources.site.requests.length).toBe(fetchedBefore);

    const local = await research({ exclude_domains: [HARBOUR_NEWS] });
    expect(hostsOf(local.sources)).toEqual(['127.0.0.1']);
    expect(local.content).not.toContain(HARBOUR_NEWS);
  });

  test('include_domains: sources from the included sites only (a wildcard, a host)', async () => {
    const wildcard = await research({ include_domains: ['*.example.co.uk'] });
    expect(hostsOf(wildcard.sources)).toEqual([HARBOUR_NEWS]);
    const host = await research({ include_domains: ['127.0.0.1'] });
    expect(hostsOf(host.sources)).toEqual(['127.0.0.1']);
    // A path prefix narrows a site to its pages under that path.
    const path = await research({ include_domains: [`${HARBOUR_NEWS}/2024/harbour-reopens`] });
    expect(path.sources.map((s: { url: string }) => s.url)).toEqual([`https://${HARBOUR_NEWS}/2024/harbour-reopens`]);
  });

  test('the options are kept with the task', async () => {
    const { id } = await research({
      include_domains: ['127.0.0.1'],
      exclude_domains: ['x.test'],
      output_length: 'long',
    });
    const row = await r.app.app
      .get(Database)
      .query('SELECT include_domains, exclude_domains, output_length FROM research_jobs WHERE request_id = $1', [id]);
    expect(row.rows[0]).toEqual({ include_domains: ['127.0.0.1'], exclude_domains: ['x.test'], output_length: 'long' });
  });

  test('output_length: short quotes fewer sentences than the default medium, long more', async () => {
    const short = await research({ output_length: 'short' });
    const medium = await research({});
    const explicitMedium = await research({ output_length: 'medium' });
    const long = await research({ output_length: 'long' });
    expect(quotedLines(explicitMedium.content)).toBe(quotedLines(medium.content));
    expect(quotedLines(short.content)).toBeLessThan(quotedLines(medium.content));
    expect(quotedLines(long.content)).toBeGreaterThan(quotedLines(medium.content));
    expect(short.content.length).toBeLessThan(medium.content.length);
    expect(long.content.length).toBeGreaterThan(medium.content.length);
  });
});
