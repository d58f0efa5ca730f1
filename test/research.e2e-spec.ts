import { MESSAGES } from '../src/metering/metering.errors.js';
import { maximumResearchCredits } from '../src/research/research-pricing.js';
import { chargesOf } from './support/metering-fixture.js';
import { type ResearchApp, startResearchApp } from './support/research-app.js';

/** Bullet lines of a report's sections: `- <quoted sentence> <citation>`. */
function quotedLines(report: string): { sentence: string; citation: string }[] {
  return report
    .split('\n')
    .filter((line) => line.startsWith('- ') && /\[\d+\]$/.test(line))
    .map((line) => {
      const match = /^- (.*) (\[\d+\])$/.exec(line)!;
      return { sentence: match[1]!, citation: match[2]! };
    });
}

describe('POST /research and GET /research/{request_id}: 200', () => {
  let r: ResearchApp;
  beforeAll(async () => {
    r = await startResearchApp();
  }, 60_000);
  afterAll(async () => {
    await r?.stop();
  });

  test('submits at once (pending, usage headers), runs in the background, and completes with an extractive report citing the pages read', async () => {
    const input = 'How does tidal power work and how much does marine energy cost?';
    const submitted = await r.submit({ input, model: 'mini', unknown_field: 'ignored' });
    expect(submitted.status).toBe(200);
    expect(submitted.body).toEqual({
      request_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      created_at: expect.any(String),
      status: 'pending',
      input,
      model: 'mini',
      response_time: expect.any(Number),
    });
    expect(submitted.headers.get('x-ratelimit-limit')).toMatch(/^\d+$/);
    expect(submitted.headers.get('x-credits-limit')).toMatch(/^\d+$/);
    // The most a mini task can cost is reserved while it runs.
    expect(Number(submitted.headers.get('x-credits-used'))).toBe(maximumResearchCredits('mini'));

    const done = await r.settled(submitted.body.request_id);
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ request_id: submitted.body.request_id, status: 'completed', input, model: 'mini' });
    const report = done.body.content as string;
    expect(report.startsWith(`# ${input}`)).toBe(true);
    expect(report).toContain('## Sources');
    const sources = done.body.sources as { title: string; url: string }[];
    expect(sources.length).toBeGreaterThan(0);
    for (const source of sources) expect(source.url.startsWith(r.sources.site.origin)).toBe(true);

    // Every claim is a sentence quoted verbatim from a page it cites.
    const lines = quotedLines(report);
    expect(lines.length).toBeGreaterThan(1);
    for (const { sentence, citation } of lines) {
      expect(r.sources.sentences).toContain(sentence);
      const cited = sources[Number(citation.slice(1, -1)) - 1]!;
      const page = Object.entries((await import('./support/research-sources.js')).RESEARCH_PAGES).find(
        ([path]) => r.sources.pageUrl(path as never) === cited.url,
      )![1];
      expect(page.paragraphs as readonly string[]).toContain(sentence);
    }
    expect(report).toMatch(/^- Tidal power converts the energy of the rising and falling tides into electricity\. \[\d\]$/m);
    // Numbered in reading order: the first citation is [1], every source listed is cited.
    expect(lines[0]!.citation).toBe('[1]');
    const citedNumbers = new Set(lines.map((l) => l.citation));
    expect(citedNumbers.size).toBe(sources.length);

    // One charge: the searches it ran (basic, 1 each) and the sources it read (1 per started block of 5).
    const charges = (await chargesOf(r.app, r.org.orgId)).filter((c) => c.request_id === submitted.body.request_id);
    expect(charges).toHaveLength(1);
    const charge = charges[0]!;
    expect(charge).toMatchObject({ operation: 'research', depth: 'mini', key_environment: 'live', channel: 'rest' });
    expect(charge.credits).toBe(charge.counts.searches! + Math.ceil(charge.counts.sources! / 5));
    expect(done.body.usage).toEqual({ credits: charge.credits });
  });
});

describe('POST /research: 401', () => {
  let r: ResearchApp;
  beforeAll(async () => {
    r = await startResearchApp();
  }, 60_000);
  afterAll(async () => {
    await r?.stop();
  });

  test('no key or a wrong key', async () => {
    const missing = await r.submit({ input: 'tidal power' }, { key: '' });
    expect(missing.status).toBe(401);
    expect(missing.body.detail.error).toBe(MESSAGES.invalidKey);
  });
});
