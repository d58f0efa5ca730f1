import { VERTICAL_PRICES } from '../../metering/pricing.js';
import {
  LISTING_TYPES,
  MAX_VERTICAL_QUERY_LENGTH,
  VERTICAL_TIME_RANGES,
} from '../../verticals/dto/vertical-request.dto.js';
import { VERTICALS } from '../../verticals/verticals.js';
import {
  type JsonSchema,
  type ObjectSchema,
  array,
  boolean,
  enumOf,
  integer,
  nullableNumber,
  nullableString,
  number,
  object,
  ref,
  string,
} from './json-schema.js';

/** POST /search/{vertical}: the request and the normalized result record of every vertical. */

export const VERTICAL_REQUEST: ObjectSchema = object({
  query: string(
    `What to search for (required, except for youtube_transcript, which may name the video in url instead; at most ${MAX_VERTICAL_QUERY_LENGTH} characters).`,
    { minLength: 1, maxLength: MAX_VERTICAL_QUERY_LENGTH },
  ),
  url: string('youtube_transcript: the video, as a URL or a video id.', { maxLength: 2048 }),
  max_results: integer('How many results, 1 to 20. Default 10.', { minimum: 1, maximum: 20, default: 10 }),
  country: string(
    "A country name ('united states') or ISO code ('us'): products, amazon, places, jobs, news, images, scholar, " +
      'patents, trends, bing, duckduckgo, brave.',
    { maxLength: 100 },
  ),
  language: string(
    'A language code (en, de, pt-BR): news, images, bing, duckduckgo, brave, youtube_transcript (the caption ' +
      'language wanted).',
    { pattern: '^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})?$' },
  ),
  location: string('A place name: places, jobs, realestate.', { maxLength: 200 }),
  time_range: enumOf(
    VERTICAL_TIME_RANGES,
    'news, bing, duckduckgo, brave: published within; trends: the span of the curve (default year).',
  ),
  listing_type: enumOf(LISTING_TYPES, 'realestate: for sale or for rent.'),
  include_usage: boolean('Add a `usage` object to the response. Default false.', { default: false }),
});

const provider = enumOf(['local', 'searxng', 'brave', 'serpapi', 'youtube'], 'The provider that filled this record.');
const strings = (description: string) => array(string(''), description);
const nullableInteger = (description: string) => ({ type: ['integer', 'null'], description });

const PRODUCT_FIELDS: Record<string, JsonSchema> = {
  title: string('Product name.'),
  url: string('Product page.'),
  price: nullableNumber('Price.'),
  currency: nullableString('ISO 4217 currency code.'),
  availability: nullableString('in_stock, out_of_stock, pre_order, back_order, limited_availability, sold_out, …'),
  rating: nullableNumber('Average rating (usually out of 5).'),
  reviews: nullableInteger('Number of reviews or ratings.'),
  seller: nullableString('Seller.'),
  brand: nullableString('Brand.'),
  image: nullableString('Image URL.'),
  provider,
};

const all = (properties: Record<string, JsonSchema>, description: string): ObjectSchema =>
  object(properties, Object.keys(properties), { description });

const WEB_RESULT = all(
  {
    title: string('Title.'),
    url: string('URL.'),
    snippet: nullableString('Snippet.'),
    published_date: nullableString('ISO 8601 instant.'),
    provider,
  },
  "bing, duckduckgo, brave: that engine's web results.",
);

/** Every vertical's result record. Every field is always present: null (or []) when no provider knew it. */
export const VERTICAL_RESULTS: Record<string, ObjectSchema> = {
  products: all(PRODUCT_FIELDS, 'products (shopping).'),
  images: all(
    {
      url: string('The image itself.'),
      thumbnail: nullableString('Thumbnail URL.'),
      title: nullableString('Title.'),
      source_url: nullableString('The page showing the image.'),
      width: nullableInteger('Pixels.'),
      height: nullableInteger('Pixels.'),
      provider,
    },
    'images.',
  ),
  places: all(
    {
      name: string('Name.'),
      address: nullableString('Address.'),
      latitude: nullableNumber('Latitude.'),
      longitude: nullableNumber('Longitude.'),
      rating: nullableNumber('Average rating.'),
      reviews: nullableInteger('Number of reviews.'),
      phone: nullableString('Phone number.'),
      website: nullableString('Website.'),
      category: nullableString('Kind of place: a schema.org type or the upstream category.'),
      url: nullableString('Where the place was found.'),
      provider,
    },
    'places (maps).',
  ),
  news: all(
    {
      title: string('Headline.'),
      url: string('Article URL.'),
      source: nullableString('Publisher.'),
      published_date: nullableString('ISO 8601 instant.'),
      snippet: nullableString('Snippet.'),
      image: nullableString('Image URL.'),
      provider,
    },
    'news.',
  ),
  jobs: all(
    {
      title: string('Job title.'),
      company: nullableString('Employer.'),
      location: nullableString('Where.'),
      salary: {
        description: 'Salary, when stated.',
        anyOf: [
          { type: 'null' },
          all(
            {
              min: nullableNumber('Lower bound.'),
              max: nullableNumber('Upper bound.'),
              currency: nullableString('ISO 4217 code.'),
              period: nullableString('hour, day, week, month or year.'),
              text: string('As written.'),
            },
            'A salary.',
          ),
        ],
      },
      employment_type: nullableString(
        'full_time, part_time, contractor, temporary, intern, volunteer, per_diem, other.',
      ),
      posted_date: nullableString('YYYY-MM-DD.'),
      url: nullableString('Posting URL.'),
      description: nullableString('Description.'),
      provider,
    },
    'jobs.',
  ),
  realestate: all(
    {
      title: string('Listing title.'),
      price: nullableNumber('Price.'),
      currency: nullableString('ISO 4217 code.'),
      address: nullableString('Address.'),
      bedrooms: nullableNumber('Bedrooms.'),
      bathrooms: nullableNumber('Bathrooms.'),
      floor_area: nullableNumber('Floor area.'),
      floor_area_unit: nullableString('sqm or sqft.'),
      listing_type: nullableString('sale or rent.'),
      image: nullableString('Image URL.'),
      url: string('Listing URL.'),
      provider,
    },
    'realestate.',
  ),
  youtube_transcript: all(
    {
      video_id: string('Video id.'),
      title: nullableString('Title.'),
      channel: nullableString('Channel.'),
      language: nullableString('Caption language.'),
      url: string('Video URL.'),
      thumbnail: nullableString('Thumbnail URL.'),
      transcript: string('The captions joined into paragraphs.'),
      segments: array(
        all(
          { start: number('Seconds from the start.'), duration: number('Seconds.'), text: string('Text.') },
          'A caption.',
        ),
        'Timed captions.',
      ),
      provider,
    },
    'youtube_transcript.',
  ),
  amazon: all(
    { ...PRODUCT_FIELDS, asin: nullableString('ASIN.'), prime: { type: ['boolean', 'null'], description: 'Prime.' } },
    'amazon: a product with its ASIN and Prime eligibility.',
  ),
  scholar: all(
    {
      title: string('Title.'),
      authors: strings('Authors.'),
      venue: nullableString('Journal, conference or publisher.'),
      year: nullableInteger('Year.'),
      doi: nullableString('DOI.'),
      pdf_url: nullableString('PDF URL.'),
      citations: nullableInteger('Times cited.'),
      url: nullableString('URL.'),
      snippet: nullableString('Snippet.'),
      provider,
    },
    'scholar.',
  ),
  patents: all(
    {
      title: string('Title.'),
      patent_number: nullableString('Patent number.'),
      assignee: nullableString('Assignee.'),
      inventors: strings('Inventors.'),
      filing_date: nullableString('YYYY-MM-DD.'),
      publication_date: nullableString('YYYY-MM-DD.'),
      abstract: nullableString('Abstract.'),
      url: nullableString('URL.'),
      pdf_url: nullableString('PDF URL.'),
      provider,
    },
    'patents.',
  ),
  trends: all(
    {
      query: string('The query.'),
      interval: string('hour, day, week or month.'),
      value_type: enumOf(
        ['document_count', 'relative_interest'],
        'document_count: matching documents of the local index per period; relative_interest: a 0–100 scale.',
      ),
      points: array(
        all({ date: string('Start of the period.'), value: number('Value.') }, 'A point.'),
        'Interest over time.',
      ),
      related_queries: strings('Related queries.'),
      provider,
    },
    'trends: interest in the query over time.',
  ),
  finance: all(
    {
      symbol: string('Ticker symbol.'),
      name: nullableString('Name.'),
      price: nullableNumber('Price.'),
      currency: nullableString('ISO 4217 code.'),
      change: nullableNumber('Change since the previous close.'),
      change_percent: nullableNumber('Change in percent.'),
      exchange: nullableString('Exchange.'),
      as_of: nullableString('When the price was observed.'),
      url: nullableString('URL.'),
      provider,
    },
    'finance: a quote.',
  ),
  bing: WEB_RESULT,
  duckduckgo: WEB_RESULT,
  brave: WEB_RESULT,
};

export const verticalSchemaName = (vertical: string) =>
  `Vertical${vertical
    .split('_')
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('')}Result`;

/** One response schema per vertical, told apart by `vertical`. */
export const VERTICAL_RESPONSE: JsonSchema = {
  oneOf: VERTICALS.map((name) =>
    object(
      {
        query: string('The query.'),
        vertical: { type: 'string', const: name },
        results: array(ref(verticalSchemaName(name)), `${name} records.`),
        response_time: number('Seconds the call took.'),
        request_id: string('Identifies this request.'),
        usage: ref('Usage'),
      },
      ['query', 'vertical', 'results', 'response_time', 'request_id'],
    ),
  ),
  discriminator: { propertyName: 'vertical' },
};

export const VERTICAL_DESCRIPTION = VERTICALS.map(
  (name) => `\`${name}\` (${VERTICAL_PRICES[name] ?? 1} credit${(VERTICAL_PRICES[name] ?? 1) === 1 ? '' : 's'})`,
).join(', ');
