import { upstreamFixture } from '../../../test/support/upstream-servers.js';
import { parseBraveImages, parseBraveNews, parseBraveWeb } from '../../search/upstream/brave.js';
import { parseSearxngResponse } from '../../search/upstream/searxng.js';
import { type SerpEngine, parseSerpAnswer } from '../../search/upstream/serpapi.js';
import { braveImageResults, braveNewsResults, braveWebResults } from './brave-verticals.js';
import { searxngImages, searxngNews, searxngPlaces, searxngScholar, searxngWeb } from './searxng-verticals.js';
import { serpImages } from './serpapi/serpapi-images.js';
import { salaryFromText, serpJobs, serpNews, serpScholar } from './serpapi/serpapi-news-jobs-scholar.js';
import { serpFinance, serpPatents, serpTrends } from './serpapi/serpapi-patents-trends-finance.js';
import { serpPlaces } from './serpapi/serpapi-places.js';
import { serpAmazon, serpCurrency, serpProducts } from './serpapi/serpapi-shopping.js';
import { serpWeb } from './serpapi/serpapi-web.js';
import { serpYoutubeVideos } from './serpapi/serpapi-youtube.js';

const NOW = new Date('2024-11-26T12:00:00Z');
const DAY = 86_400_000;
const searx = (name: string) => parseSearxngResponse(upstreamFixture(`searxng/${name}.json`, NOW));
const serp = (engine: SerpEngine, file: string = engine) => {
  const { root, failure } = parseSerpAnswer(engine, upstreamFixture(`serpapi/${file}.json`, NOW));
  expect(failure).toBeNull();
  return root;
};

describe('SearXNG categories as verticals', () => {
  test('images: img_src is the image, url the page, resolution the size', () => {
    expect(searxngImages(searx('images'))).toEqual([
      {
        url: 'https://upload.wikimedia.example/wikipedia/commons/7/7a/Cape_Brava_lighthouse.jpg',
        thumbnail: 'https://tse2.mm.bing.example/th?id=OIP.capebrava&pid=Api',
        title: 'File:Cape Brava lighthouse.jpg - Wikimedia Commons',
        source_url: 'https://commons.wikimedia.example/wiki/File:Cape_Brava_lighthouse.jpg',
        width: 3000,
        height: 2000,
        provider: 'searxng',
      },
      expect.objectContaining({
        url: 'https://photos.coastalwalks.example/cape-brava/lighthouse-dusk.jpg',
        width: 1600,
        height: 1067,
      }),
    ]);
  });

  test('news: dates, thumbnails (or img_src), the host as source', () => {
    const news = searxngNews(searx('news'));
    expect(news[0]).toEqual({
      title: 'Harbour town votes to rebuild its sea wall',
      url: 'https://coastalcourier.example/news/harbour-sea-wall-vote',
      source: 'coastalcourier.example',
      published_date: new Date(NOW.getTime() - 2 * DAY).toISOString(),
      snippet: 'Councillors approved a €14 million plan to raise the sea wall by 1.2 metres.',
      image: 'https://coastalcourier.example/media/sea-wall-hero-thumb.jpg',
      provider: 'searxng',
    });
    expect(news[1]!.image).toBe('https://www.tidewire.example/img/oyster-wall.jpg');
    expect(news[2]!.published_date).toBe('2019-06-01T00:00:00.000Z');
  });

  test('science: paper fields (authors, journal, doi, pdf), citations from "Cited by"', () => {
    const papers = searxngScholar(searx('science'));
    expect(papers[0]).toEqual({
      title: 'Machine-learned predictors of wave overtopping at sea walls',
      authors: ['Priya Raman', 'Jonas Weber'],
      venue: null,
      year: 2022,
      doi: '10.48550/arXiv.2203.01234',
      pdf_url: 'https://arxiv.example/pdf/2203.01234v2',
      citations: null,
      url: 'https://arxiv.example/abs/2203.01234v2',
      snippet:
        'We train gradient-boosted models on the CLASH database to predict mean overtopping discharge at sea walls.',
      provider: 'searxng',
    });
    expect(papers[1]).toMatchObject({ venue: 'Journal of Coastal Engineering Research', citations: 42, year: 2021 });
  });

  test('map: coordinates, address, phone and website from the links', () => {
    expect(searxngPlaces(searx('map'))[0]).toEqual({
      name: 'Padaria Estrela',
      address: '112 Calçada da Estrela, 1200-661 Lisbon, Portugal',
      latitude: 38.7128,
      longitude: -9.1601,
      rating: null,
      reviews: null,
      phone: '+351215550877',
      website: 'https://padariaestrela.example/',
      category: 'Bakery',
      url: 'https://openstreetmap.org/node/4471235001',
      provider: 'searxng',
    });
  });

  test('engines: only the asked engine’s results', () => {
    const response = searx('general');
    expect(searxngWeb(response, 'brave').map((r) => r.url)).toEqual([
      'https://en.wikipedia.org/wiki/Seawall',
      'https://coastalcourier.example/news/harbour-sea-wall-vote',
    ]);
    expect(searxngWeb(response, 'duckduckgo')[1]).toMatchObject({
      url: 'https://www.overtopping-manual.example/eurotop/',
      published_date: new Date(NOW.getTime() - 40 * DAY).toISOString(),
      provider: 'searxng',
    });
  });
});

describe('Brave endpoints as verticals', () => {
  test('web, news and images', () => {
    expect(braveWebResults(parseBraveWeb(upstreamFixture('brave/web.json', NOW)))[0]).toEqual({
      title: 'Seawall - Wikipedia',
      url: 'https://en.wikipedia.org/wiki/Seawall',
      snippet:
        'A seawall (or sea wall) is a form of coastal defence constructed where the sea impacts directly upon the landforms of the coast.',
      published_date: '2024-10-02T11:20:05.000Z',
      provider: 'brave',
    });
    expect(braveNewsResults(parseBraveNews(upstreamFixture('brave/news.json', NOW)))[1]).toEqual({
      title: 'Harbour town votes to rebuild its sea wall',
      url: 'https://coastalcourier.example/news/harbour-sea-wall-vote',
      source: 'coastalcourier.example',
      published_date: new Date(NOW.getTime() - 2 * DAY).toISOString(),
      snippet: 'Councillors approved a €14 million plan.',
      image: 'https://imgs.search.brave.example/news/sea-wall.jpg',
      provider: 'brave',
    });
    expect(braveImageResults(parseBraveImages(upstreamFixture('brave/images.json', NOW)))[0]).toEqual({
      url: 'https://live.staticflickr.example/65535/53312345678_ab12cd34ef_b.jpg',
      thumbnail: 'https://imgs.search.brave.example/img/capebrava-winter.jpg',
      title: 'Cape Brava lighthouse in winter',
      source_url: 'https://www.flickr.example/photos/seawalker/53312345678/',
      width: 1024,
      height: 683,
      provider: 'brave',
    });
  });
});

describe('SerpAPI engines as verticals', () => {
  test('google_shopping: prices, ratings, review counts ("2.1K"), stock from extensions', () => {
    const products = serpProducts(serp('google_shopping'), 'US');
    expect(products[0]).toEqual({
      title: 'Gooseneck Pour-Over Kettle 1 L',
      url: 'https://www.hearthhome.example/kettles/gooseneck-pour-over-1l',
      price: 64,
      currency: 'USD',
      availability: 'in_stock',
      rating: 4.6,
      reviews: 231,
      seller: 'Hearth & Home Supply',
      brand: null,
      image: 'https://encrypted-tbn0.gstatic.example/shopping?q=tbn:gooseneck',
      provider: 'serpapi',
    });
    expect(products[1]).toMatchObject({ price: 1099, reviews: 2100, availability: 'out_of_stock' });
    expect(products[2]).toMatchObject({ rating: null, reviews: null, availability: null });
  });

  test('currencies from price symbols; a dollar outside the US is not assumed to be USD', () => {
    expect(serpCurrency('$24.99', null)).toBe('USD');
    expect(serpCurrency('$24.99', 'CA')).toBeNull();
    expect(serpCurrency('€19,99', 'DE')).toBe('EUR');
    expect(serpCurrency('₹67,400', 'IN')).toBe('INR');
    expect(serpCurrency('£5', 'GB')).toBe('GBP');
  });

  test('amazon: ASINs, clean links, Prime', () => {
    const items = serpAmazon(serp('amazon'), null);
    expect(items[0]).toEqual({
      title: 'Fellowship Electric Gooseneck Kettle, 0.9 L, Variable Temperature',
      url: 'https://www.amazon.com/dp/B0CKT1E7LE',
      price: 49.99,
      currency: 'USD',
      availability: null,
      rating: 4.5,
      reviews: 18342,
      seller: null,
      brand: null,
      image: 'https://m.media-amazon.example/images/I/61kettleXyZ._AC_UL320_.jpg',
      asin: 'B0CKT1E7LE',
      prime: true,
      provider: 'serpapi',
    });
    expect(items[1]).toMatchObject({ asin: 'B07P5ZVDDW', prime: null });
  });

  test('google_jobs: salary texts, schedule types, relative posting dates, apply links', () => {
    const jobs = serpJobs(serp('google_jobs'), NOW);
    expect(jobs[0]).toEqual({
      title: 'Barista (Full-time)',
      company: 'Fábrica Coffee Roasters',
      location: 'Lisbon, Portugal',
      salary: { min: 1100, max: 1300, currency: 'EUR', period: 'month', text: '€1,100–€1,300 a month' },
      employment_type: 'full_time',
      posted_date: '2024-11-23',
      url: 'https://www.linkedin.example/jobs/view/3901234567',
      description: expect.stringContaining('Fábrica Coffee Roasters is hiring a barista'),
      provider: 'serpapi',
    });
    expect(jobs[1]).toMatchObject({
      employment_type: 'part_time',
      posted_date: '2024-11-19',
      salary: { min: 8, max: 10, currency: null, period: 'hour' },
      url: 'https://www.google.com/search?ibp=htl;jobs&q=barista#htidocid=def456',
    });
  });

  test('salary texts', () => {
    expect(salaryFromText('80K–100K a year')).toMatchObject({ min: 80000, max: 100000, period: 'year' });
    expect(salaryFromText('$25 an hour')).toMatchObject({ min: 25, max: 25, currency: 'USD', period: 'hour' });
    expect(salaryFromText('From $120,000 a year')).toMatchObject({ min: 120000, max: null, currency: 'USD' });
    expect(salaryFromText('Up to $40 an hour')).toMatchObject({ min: null, max: 40 });
    expect(salaryFromText('Competitive')).toBeNull();
  });

  test('google_patents: numbers, dates, inventors, PDFs', () => {
    expect(serpPatents(serp('google_patents'))[0]).toEqual({
      title: 'Modular sea wall panel with energy-dissipating recurve',
      patent_number: 'US11234567B2',
      assignee: 'Tidewater Consulting Lda',
      inventors: ['Ana Ribeiro'],
      filing_date: '2019-08-23',
      publication_date: '2022-02-01',
      abstract: 'A precast concrete sea wall panel whose recurved crest returns overtopping water seaward …',
      url: 'https://patents.google.com/patent/US11234567B2/en',
      pdf_url: 'https://patentimages.storage.example/pdfs/US11234567.pdf',
      provider: 'serpapi',
    });
  });

  test('google_trends: weekly points from timestamps, related queries (top, then rising)', () => {
    const [trend] = serpTrends('heat pump', serp('google_trends'), serp('google_trends', 'google_trends_related'));
    expect(trend).toMatchObject({
      query: 'heat pump',
      interval: 'week',
      value_type: 'relative_interest',
      provider: 'serpapi',
    });
    expect(trend!.points).toEqual([
      { date: '2023-10-29', value: 61 },
      { date: '2023-11-05', value: 66 },
      { date: '2023-11-12', value: 72 },
      { date: '2023-11-19', value: 100 },
      { date: '2023-11-26', value: 0 },
    ]);
    expect(trend!.related_queries).toEqual(['air source heat pump', 'heat pump cost', 'heat pump grant']);
  });

  test('google_finance: the summary quote, a falling price as a negative change', () => {
    expect(serpFinance(serp('google_finance'), 'GOOGL:NASDAQ')).toEqual([
      {
        symbol: 'GOOGL',
        name: 'Alphabet Inc Class A',
        price: 169.23,
        currency: 'USD',
        change: -1.93,
        change_percent: -1.13,
        exchange: 'NASDAQ',
        as_of: 'Nov 26, 4:00:00 PM GMT-5',
        url: 'https://www.google.com/finance/quote/GOOGL:NASDAQ',
        provider: 'serpapi',
      },
    ]);
    const withoutSummary = serp('google_finance');
    delete withoutSummary.summary;
    expect(serpFinance(withoutSummary, 'markets')[0]).toMatchObject({
      symbol: '.DJI',
      exchange: 'INDEXDJX',
      price: 44736.57,
      change: 440.06,
    });
  });

  test('google_scholar: authors, venue and year from publication_info, DOIs from links, PDFs, citations', () => {
    const papers = serpScholar(serp('google_scholar'));
    expect(papers[0]).toEqual({
      title: 'Wave overtopping at vertical sea walls under rising sea levels',
      authors: ['C Okafor', 'S Lindqvist', 'R Duarte'],
      venue: 'Journal of Coastal Engineering …',
      year: 2021,
      doi: '10.5555/jcer.2021.038.201',
      pdf_url: 'https://jcer.example/articles/38/2/201/pdf',
      citations: 42,
      url: 'https://doi.org/10.5555/jcer.2021.038.201',
      snippet: expect.stringContaining('Physical model tests'),
      provider: 'serpapi',
    });
    expect(papers[1]).toMatchObject({ year: 2009, citations: 187, doi: '10.1680/maen.2009.162.4.167' });
  });

  test('google_maps: local results with coordinates, ratings, phones, websites', () => {
    const places = serpPlaces(serp('google_maps'));
    expect(places[0]).toEqual({
      name: 'Padaria Estrela',
      address: 'Calçada da Estrela 112, 1200-661 Lisboa, Portugal',
      latitude: 38.712812,
      longitude: -9.160133,
      rating: 4.8,
      reviews: 1204,
      phone: '+351 21 555 0877',
      website: 'https://padariaestrela.example/',
      category: 'Bakery',
      url: 'https://www.google.com/maps/place/?q=place_id:ChIJ0bakeryEstrela0001',
      provider: 'serpapi',
    });
    expect(serpPlaces({ search_metadata: {}, place_results: { title: 'Manteigaria', rating: 4.7 } })).toHaveLength(1);
  });

  test('bing and duckduckgo: organic results', () => {
    const bing = serpWeb(serp('bing'));
    expect(bing[1]).toMatchObject({
      url: 'https://www.coastalblog.example/wave-overtopping-explained',
      published_date: new Date(Date.UTC(2024, 10, 14)).toISOString(),
    });
    expect(serpWeb(serp('duckduckgo')).map((r) => r.url)).toEqual([
      'https://en.wikipedia.org/wiki/Seawall',
      'https://www.overtopping-manual.example/eurotop/',
    ]);
  });

  test('google_news: results, highlighted stories and their clusters', () => {
    const news = serpNews(serp('google_news'));
    expect(news.map((n) => n.url)).toEqual([
      'https://coastalcourier.example/news/harbour-sea-wall-vote',
      'https://shoreline.example/2024/sea-wall-repairs-delayed',
      'https://climatedesk.example/opinion/sea-walls-not-enough',
      'https://heritagemonthly.example/victorian-sea-walls',
    ]);
    expect(news[0]).toMatchObject({
      source: 'The Coastal Courier',
      published_date: new Date(Math.floor((NOW.getTime() - 2 * DAY) / 1000) * 1000).toISOString(),
    });
  });

  test('google_images and youtube', () => {
    expect(serpImages(serp('google_images'))[0]).toEqual({
      url: 'https://upload.wikimedia.example/wikipedia/commons/7/7a/Cape_Brava_lighthouse.jpg',
      thumbnail: 'https://serpapi.com/searches/16c728e304152637/images/thumb1.jpeg',
      title: 'Cape Brava lighthouse - Wikimedia Commons',
      source_url: 'https://commons.wikimedia.example/wiki/File:Cape_Brava_lighthouse.jpg',
      width: 3000,
      height: 2000,
      provider: 'serpapi',
    });
    expect(serpYoutubeVideos(serp('youtube'))).toEqual(['https://www.youtube.com/watch?v=tIdEpOwEr01']);
  });
});
