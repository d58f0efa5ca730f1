import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderFixture } from '../../../test/support/upstream-servers.js';
import { extractHtml } from '../../extract/html/html-page.js';
import { imagesOf } from './images-records.js';
import { jobsOf } from './jobs-records.js';
import type { LocalDocument } from './local-documents.js';
import { newsOf } from './news-records.js';
import { patentsOf } from './patents-records.js';
import { placesOf, realEstateOf } from './places-records.js';
import { doiOf, scholarOf } from './scholar-records.js';
import { availabilityOf, currencyOf, priceOf, typedItems } from './schema-org.js';
import { amazonOf, asinOf, productsOf } from './shopping-records.js';

const PAGES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../test/fixtures/verticals/pages');
const NOW = new Date();
const DAY = 86_400_000;

/** A fixture page through the real HTML extractor, as the local index stores it. */
function page(file: string, url: string): LocalDocument {
  const html = renderFixture(readFileSync(path.join(PAGES, file), 'utf8'), NOW);
  const extracted = extractHtml(html, url, { depth: 'basic', format: 'markdown' });
  return {
    url,
    domain: new URL(url).hostname,
    title: extracted.title,
    snippet: extracted.content.slice(0, 600),
    publishedDate: extracted.publishedDate ? new Date(extracted.publishedDate) : null,
    images: extracted.images,
    structuredData: extracted.structuredData,
    rank: 1,
  };
}

describe('local records from structured data', () => {
  test('products: a JSON-LD Product with its Offer, rating, brand and seller', () => {
    const [product] = productsOf(page('products-kettle.html', 'https://www.hearthhome.example/kettles/gooseneck'));
    expect(product).toEqual({
      title: 'Gooseneck Pour-Over Kettle 1 L',
      url: 'https://www.hearthhome.example/kettles/gooseneck-pour-over-1l',
      price: 64,
      currency: 'USD',
      availability: 'in_stock',
      rating: 4.6,
      reviews: 212,
      seller: 'Hearth & Home Supply',
      brand: 'Hearthworks',
      image: 'https://cdn.hearthhome.example/img/gooseneck-kettle-front.jpg',
      provider: 'local',
    });
  });

  test('products: microdata Products of an ItemList, relative images resolved against the page', () => {
    const products = productsOf(page('products-grinders.html', 'https://moinho.example/grinders'));
    expect(products.map((p) => [p.title, p.price, p.currency, p.availability, p.url])).toEqual([
      ['Conical Burr Grinder C40', 129.99, 'EUR', 'in_stock', 'https://moinho.example/p/conical-burr-grinder-c40'],
      ['Flat Burr Grinder F64', 449, 'EUR', 'pre_order', 'https://moinho.example/p/flat-burr-grinder-f64'],
      ['Espresso Tamper 58 mm', 39, 'EUR', 'out_of_stock', 'https://moinho.example/p/espresso-tamper-58'],
    ]);
    expect(products[0]).toMatchObject({
      brand: 'Moinho',
      rating: 4.8,
      reviews: 96,
      image: 'https://moinho.example/img/c40.jpg',
    });
  });

  test('products: an OpenGraph product page without schema.org items', () => {
    const doc = page('products-kettle.html', 'https://www.hearthhome.example/kettles/gooseneck');
    const ogOnly = { ...doc, structuredData: doc.structuredData.filter((item) => item['@source'] === 'opengraph') };
    expect(productsOf(ogOnly)).toEqual([
      expect.objectContaining({
        title: 'Gooseneck Pour-Over Kettle 1 L',
        price: 64,
        currency: 'USD',
        seller: 'Hearth & Home Supply',
      }),
    ]);
  });

  test('amazon: products of amazon.* pages, with the ASIN from the URL', () => {
    const url = 'https://www.amazon.com/Fellowship-Electric-Gooseneck-Kettle/dp/B0CKT1E7LE';
    expect(amazonOf(page('amazon-kettle.html', url))).toEqual([
      expect.objectContaining({
        asin: 'B0CKT1E7LE',
        prime: null,
        price: 49.99,
        reviews: 18342,
        seller: 'Amazon.com',
        url,
      }),
    ]);
    expect(amazonOf(page('products-kettle.html', 'https://www.hearthhome.example/k'))).toEqual([]);
    expect(asinOf('https://www.amazon.co.uk/gp/product/B07P5ZVDDW?th=1')).toBe('B07P5ZVDDW');
  });

  test('images: ImageObjects (not logos), OpenGraph images with their size, page images', () => {
    const images = imagesOf(page('images-lighthouse.html', 'https://coastalwalks.example/cape-brava/'));
    expect(images).toEqual([
      {
        url: 'https://photos.coastalwalks.example/cape-brava/lighthouse-dusk.jpg',
        thumbnail: 'https://photos.coastalwalks.example/cape-brava/thumbs/lighthouse-dusk.jpg',
        title: 'The Cape Brava lighthouse at dusk',
        source_url: 'https://coastalwalks.example/cape-brava/',
        width: 1600,
        height: 1067,
        provider: 'local',
      },
      expect.objectContaining({
        url: 'https://photos.coastalwalks.example/cape-brava/lantern-room.jpg',
        title: 'Lantern room of the Cape Brava lighthouse',
        width: 1200,
        height: 1600,
      }),
      expect.objectContaining({
        url: 'https://photos.coastalwalks.example/cape-brava/cliff-path.jpg',
        source_url: 'https://coastalwalks.example/cape-brava/',
        width: null,
      }),
    ]);
  });

  test('places: a JSON-LD CafeOrCoffeeShop in an @graph, a microdata Bakery', () => {
    expect(placesOf(page('places-cafe.html', 'https://harbourlight.example/'))).toEqual([
      {
        name: 'Harbour Light Coffee',
        address: 'Rua do Alecrim 27, Lisbon, 1200-014, PT',
        latitude: 38.7087,
        longitude: -9.1428,
        rating: 4.7,
        reviews: 389,
        phone: '+351 21 555 0142',
        website: 'https://harbourlight.example/',
        category: 'CafeOrCoffeeShop',
        url: 'https://harbourlight.example/',
        provider: 'local',
      },
    ]);
    expect(placesOf(page('places-bakery.html', 'https://padariaestrela.example/'))).toEqual([
      expect.objectContaining({
        name: 'Padaria Estrela',
        address: 'Calçada da Estrela 112, Lisbon, 1200-661, Portugal',
        latitude: 38.7128,
        longitude: -9.1601,
        phone: '+351 21 555 0877',
        category: 'Bakery',
      }),
    ]);
  });

  test('news: a NewsArticle with its publisher and date; an OpenGraph article', () => {
    expect(newsOf(page('news-seawall.html', 'https://coastalcourier.example/news/harbour-sea-wall-vote'))).toEqual([
      {
        title: 'Harbour town votes to rebuild its sea wall',
        url: 'https://coastalcourier.example/news/harbour-sea-wall-vote',
        source: 'The Coastal Courier',
        published_date: new Date(Math.floor((NOW.getTime() - 2 * DAY) / 1000) * 1000).toISOString(),
        snippet:
          'Councillors approved a €14 million plan to raise the sea wall by 1.2 metres after two winters of flooding.',
        image: 'https://coastalcourier.example/media/sea-wall-hero.jpg',
        provider: 'local',
      },
    ]);
    expect(newsOf(page('news-ferry-og.html', 'https://islandgazette.example/2024/winter-ferry-timetable'))).toEqual([
      expect.objectContaining({ title: 'Winter ferry timetable for the harbour islands', source: 'Island Gazette' }),
    ]);
  });

  test('jobs: salary ranges and periods, employment types, remote work', () => {
    const [barista] = jobsOf(page('jobs-barista.html', 'https://harbourlight.example/jobs/head-barista'));
    expect(barista).toEqual({
      title: 'Head Barista',
      company: 'Harbour Light Coffee',
      location: 'Lisbon, PT',
      salary: { min: 1800, max: 2200, currency: 'EUR', period: 'month', text: 'EUR 1,800–2,200 per month' },
      employment_type: 'full_time',
      posted_date: new Date(NOW.getTime() - 4 * DAY).toISOString().slice(0, 10),
      url: 'https://harbourlight.example/jobs/head-barista',
      description: expect.stringMatching(/^We are looking for a head barista to run our espresso bar/),
      provider: 'local',
    });
    const [engineer] = jobsOf(page('jobs-engineer.html', 'https://tidewater.example/careers/x'));
    expect(engineer).toMatchObject({
      location: 'Remote',
      employment_type: 'contractor',
      salary: { min: 85, max: 85, currency: 'EUR', period: 'hour', text: 'EUR 85 per hour' },
      url: 'https://tidewater.example/careers/senior-coastal-engineer',
    });
  });

  test('realestate: a RealEstateListing about a residence; an Offer of an apartment to rent', () => {
    expect(realEstateOf(page('realestate-house.html', 'https://cascadehomes.example/l/4127'))).toEqual([
      {
        title: 'Craftsman house for sale on SE Alder Street',
        price: 725000,
        currency: 'USD',
        address: '4127 SE Alder St, Portland, OR 97214, US',
        bedrooms: 3,
        bathrooms: 2,
        floor_area: 1850,
        floor_area_unit: 'sqft',
        listing_type: 'sale',
        image: 'https://cascadehomes.example/photos/4127-se-alder/front.jpg',
        url: 'https://cascadehomes.example/listings/4127-se-alder',
        provider: 'local',
      },
    ]);
    expect(realEstateOf(page('realestate-apartment.html', 'https://casalisboa.example/rent/x'))).toEqual([
      expect.objectContaining({
        title: 'Bright 2-bedroom apartment in Alfama',
        price: 1450,
        currency: 'EUR',
        bedrooms: 2,
        floor_area: 68,
        floor_area_unit: 'sqm',
        listing_type: 'rent',
        url: 'https://casalisboa.example/rent/alfama-2-bedroom',
      }),
    ]);
  });

  test('scholar: citation tags merged with the same ScholarlyArticle; JSON-LD alone', () => {
    expect(scholarOf(page('scholar-overtopping.html', 'https://jcer.example/articles/38/2/201'))).toEqual([
      {
        title: 'Wave overtopping at vertical sea walls under rising sea levels',
        authors: ['Okafor, Chidi', 'Lindqvist, Sofia', 'Duarte, Rui'],
        venue: 'Journal of Coastal Engineering Research',
        year: 2021,
        doi: '10.5555/jcer.2021.038.201',
        pdf_url: 'https://jcer.example/articles/38/2/201/pdf',
        citations: null,
        url: 'https://jcer.example/articles/38/2/201',
        snippet: expect.stringContaining('Physical model tests of wave overtopping'),
        provider: 'local',
      },
    ]);
    expect(scholarOf(page('scholar-breakwaters.html', 'https://crl.example/2019/0917'))).toEqual([
      expect.objectContaining({
        authors: ['Hiroshi Tanaka', 'Amelia Brooks'],
        venue: 'Coastal Research Letters',
        year: 2019,
        doi: '10.5555/crl.2019.0917',
        pdf_url: 'https://crl.example/papers/2019-0917.pdf',
      }),
    ]);
    expect(doiOf('https://doi.org/10.1000/xyz123.')).toBe('10.1000/xyz123');
  });

  test('patents: citation_patent_* tags; a microdata Patent', () => {
    expect(
      patentsOf(page('patent-seawall-citation.html', 'https://patents.google.com/patent/US11234567B2/en')),
    ).toEqual([
      {
        title: 'Modular sea wall panel with energy-dissipating recurve',
        patent_number: 'US11234567',
        assignee: 'Tidewater Consulting Lda',
        inventors: ['Ana Ribeiro', 'Tomás Faria'],
        filing_date: '2019-08-23',
        publication_date: '2022-02-01',
        abstract: expect.stringContaining('A precast concrete sea wall panel'),
        url: 'https://patents.google.com/patent/US11234567B2/en',
        pdf_url: 'https://patentimages.example/pdfs/US11234567.pdf',
        provider: 'local',
      },
    ]);
    expect(patentsOf(page('patent-breakwater-microdata.html', 'https://patents.example/EP3456789B1'))).toEqual([
      expect.objectContaining({
        title: 'Floating breakwater with tuned ballast chambers',
        patent_number: 'EP3456789B1',
        assignee: 'Baltic Marine Works Oy',
        inventors: ['Henrik Aalto', 'Liisa Virtanen'],
        filing_date: '2018-03-15',
        publication_date: '2021-06-30',
      }),
    ]);
  });

  test('pages of one vertical hold no records of the others', () => {
    const kettle = page('products-kettle.html', 'https://www.hearthhome.example/k');
    expect([placesOf(kettle), jobsOf(kettle), realEstateOf(kettle), scholarOf(kettle), patentsOf(kettle)]).toEqual([
      [],
      [],
      [],
      [],
      [],
    ]);
    expect(scholarOf(page('patent-seawall-citation.html', 'https://patents.example/x'))).toEqual([]);
  });
});

describe('schema.org values', () => {
  test('prices in every spelling', () => {
    expect(priceOf('1,299.00')).toBe(1299);
    expect(priceOf('$19.99')).toBe(19.99);
    expect(priceOf('19,99 €')).toBe(19.99);
    expect(priceOf('1.299,00')).toBe(1299);
    expect(priceOf(42)).toBe(42);
    expect(priceOf({ '@value': '7.50' })).toBe(7.5);
    expect(priceOf('free')).toBeNull();
  });

  test('availability and currency', () => {
    expect(availabilityOf('https://schema.org/LimitedAvailability')).toBe('limited_availability');
    expect(availabilityOf('instock')).toBe('in_stock');
    expect(availabilityOf('oos')).toBe('out_of_stock');
    expect(currencyOf('eur')).toBe('EUR');
    expect(currencyOf(null, '£12')).toBe('GBP');
    expect(currencyOf(null, 'C$12')).toBe('CAD');
  });

  test('references by @id are followed, and an item reached twice is listed once', () => {
    const found = typedItems([
      { '@source': 'json-ld', '@type': 'Organization', '@id': '#org', name: 'Acme' },
      {
        '@source': 'json-ld',
        '@type': 'Product',
        name: 'Anvil',
        offers: { '@type': 'Offer', seller: { '@id': '#org' } },
      },
    ]);
    const offer = found.find((f) => f.item['@type'] === 'Offer')!;
    expect(offer.item.seller).toMatchObject({ name: 'Acme' });
    expect(found.filter((f) => f.item['@type'] === 'Organization')).toHaveLength(1);
  });
});
