import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FixtureSite } from './fixture-site.js';

/** Real-looking articles about marine energy, served on 127.0.0.1 for research tasks to search and read. */
export const RESEARCH_PAGES = {
  '/energy/tidal-power.html': {
    title: 'Tidal power: how tidal barrages and stream turbines work',
    paragraphs: [
      'Tidal power converts the energy of the rising and falling tides into electricity.',
      'A tidal barrage is a dam built across an estuary that lets the incoming tide through sluice gates and releases it through turbines.',
      'The La Rance tidal barrage in Brittany has generated electricity since 1966 and has a capacity of 240 megawatts.',
      'Tidal stream turbines stand on the seabed and turn in fast currents, much like underwater wind turbines.',
      'Because the tides follow the moon, tidal power output can be predicted years in advance.',
    ],
  },
  '/energy/wave-energy.html': {
    title: 'Wave energy converters explained',
    paragraphs: [
      'Wave energy converters capture the motion of ocean waves at the surface of the sea.',
      'Oscillating water column devices use waves to push air through a turbine inside a concrete chamber.',
      'Point absorber buoys move up and down with the waves and drive a generator through a hydraulic system.',
      'Storms are the main engineering challenge, because wave energy devices must survive waves many times larger than the ones they harvest.',
    ],
  },
  '/energy/marine-energy-costs.html': {
    title: 'The cost of marine energy in 2025',
    paragraphs: [
      'The cost of electricity from tidal stream projects fell by about 40 percent between 2018 and 2024.',
      'Wave energy remains more expensive than tidal power because fewer devices have been deployed at scale.',
      'Offshore grid connections make up a large share of the cost of every marine energy project.',
    ],
  },
} as const;

export type ResearchPagePath = keyof typeof RESEARCH_PAGES;

function pageHtml(page: (typeof RESEARCH_PAGES)[ResearchPagePath]): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${page.title}</title></head>
<body><nav><a href="/">Home</a> <a href="/energy/">Energy</a></nav>
<main><article><h1>${page.title}</h1>
${page.paragraphs.map((p) => `<p>${p}</p>`).join('\n')}
</article></main><footer>Marine Energy Notes</footer></body></html>`;
}

/**
 * The research pages on a FixtureSite, and a SearXNG-format search server (GET /search?format=json, as SearXNG
 * answers it) that returns them for any query: the research task searches it as a configured upstream and then has
 * to fetch and extract each page through the fetcher, as it does for any upstream hit. Its last result names a page
 * the site does not have (404).
 */
export async function startResearchSources() {
  const site = new FixtureSite();
  for (const [path, page] of Object.entries(RESEARCH_PAGES)) {
    site.route(path, (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(pageHtml(page));
    });
  }
  await site.start();
  const queries: string[] = [];
  const state = { failing: false };
  const searxng: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const q = url.searchParams.get('q') ?? '';
    queries.push(q);
    if (state.failing) {
      response.writeHead(500, { 'content-type': 'text/html' }).end('<h1>Internal Server Error</h1>');
      return;
    }
    const pages: [string, { title: string; paragraphs: readonly string[] }][] = [
      ...Object.entries(RESEARCH_PAGES),
      // Listed by the search engine, gone from the site (404): a task skips it and is not billed for it.
      [
        '/energy/retired-page.html',
        { title: 'Marine energy news (archived)', paragraphs: ['Archived marine energy news.'] },
      ],
    ];
    const results = pages.map(([path, page], i) => ({
      url: site.url(path),
      title: page.title,
      content: page.paragraphs[0],
      engine: 'duckduckgo',
      engines: ['duckduckgo'],
      positions: [i + 1],
      score: 3 - i * 0.5,
      category: 'general',
      parsed_url: ['http', new URL(site.origin).host, path, '', '', ''],
    }));
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify({
        query: q,
        number_of_results: results.length,
        results,
        answers: [],
        corrections: [],
        infoboxes: [],
        suggestions: [],
        unresponsive_engines: [],
      }),
    );
  });
  await new Promise<void>((resolve) => searxng.listen(0, '127.0.0.1', resolve));
  const searxngUrl = `http://127.0.0.1:${(searxng.address() as AddressInfo).port}`;
  return {
    site,
    searxngUrl,
    queries,
    state,
    pageUrl: (path: ResearchPagePath) => site.url(path),
    /** Every sentence of every page, as the pages say them. */
    sentences: Object.values(RESEARCH_PAGES).flatMap((page) => [...page.paragraphs]),
    stop: async () => {
      searxng.closeAllConnections();
      await new Promise<void>((resolve) => searxng.close(() => resolve()));
      await site.stop();
    },
  };
}

export type ResearchSources = Awaited<ReturnType<typeof startResearchSources>>;
