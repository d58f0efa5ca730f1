import { DEFAULTS as CRAWL_DEFAULTS } from '../../crawl/dto/map-request.dto.js';
import { MAX_EXTRACT_URLS, MAX_PAGES_PER_CALL } from '../../metering/metered-operation.js';
import { MAX_QUERY_LENGTH, SEARCH_DEPTHS, TIME_RANGES, TOPICS } from '../../search/dto/search-request.dto.js';
import {
  type JsonSchema,
  type ObjectSchema,
  array,
  boolean,
  enumOf,
  integer,
  nullableString,
  number,
  object,
  ref,
  string,
} from './json-schema.js';

/**
 * Request and response schemas of the data plane (search, extract, map, crawl). The request schemas list exactly
 * the fields of the class-validator DTOs (a test checks it), so the OpenAPI document, the MCP tools and the REST
 * validation accept the same parameters. The descriptions are written for people and for agents alike: the MCP
 * tools `search` and `extract` show them as their input schemas.
 */

const includeUsage = boolean(
  'Add a `usage` object (credits charged and their breakdown) to the response. Default false.',
  { default: false },
);

export const SEARCH_REQUEST: ObjectSchema = object(
  {
    query: string(
      `What to search for, in natural language or keywords (at most ${MAX_QUERY_LENGTH} characters). Put phrases ` +
        'that must appear verbatim in "double quotes" and set exact_match.',
      { minLength: 1, maxLength: MAX_QUERY_LENGTH },
    ),
    search_depth: enumOf(
      SEARCH_DEPTHS,
      "'basic' (default, 1 credit): one best snippet per page. 'advanced' (2 credits): passages are reranked and " +
        "`content` joins the chunks_per_source most relevant ones; best for precise questions. 'fast' and " +
        "'ultra-fast' (1 credit) answer like 'basic'.",
      { default: 'basic' },
    ),
    max_results: integer('How many results to return, 0 to 20. Default 5.', { minimum: 0, maximum: 20, default: 5 }),
    topic: enumOf(
      TOPICS,
      "'general' (default); 'news': only dated pages, newest weighted, each result with `published_date` (combine " +
        "with time_range, days or start_date/end_date); 'finance': financial pages.",
      { default: 'general' },
    ),
    time_range: enumOf(
      TIME_RANGES,
      'Only pages published within the last day, week, month or year (d, w, m, y are short forms). Ignored when ' +
        'start_date or end_date is given.',
    ),
    days: integer('Legacy: with topic news, only pages published within this many days back.', {
      minimum: 1,
      maximum: 36500,
    }),
    start_date: string('Only pages published on or after this day (YYYY-MM-DD). Wins over time_range.', {
      format: 'date',
      pattern: '^\\d{4}-\\d{2}-\\d{2}$',
    }),
    end_date: string('Only pages published on or before this day (YYYY-MM-DD). Wins over time_range.', {
      format: 'date',
      pattern: '^\\d{4}-\\d{2}-\\d{2}$',
    }),
    include_domains: array(
      string(
        'A domain (example.com, which includes its subdomains), a wildcard (*.gov) or a path prefix ' +
          '(example.com/blog).',
        {
          maxLength: 500,
        },
      ),
      'Only return results from these sites (at most 300).',
      { maxItems: 300 },
    ),
    exclude_domains: array(
      string('A domain, a wildcard (*.example.com) or a path prefix.', { maxLength: 500 }),
      'Never return results from these sites (at most 150).',
      { maxItems: 150 },
    ),
    include_answer: {
      description:
        "Also write an answer to the query from the results: true or 'basic' for 1 to 3 sentences (+1 credit), " +
        "'advanced' for a longer one of up to 6 sentences (+2 credits). Default false.",
      anyOf: [{ type: 'boolean' }, { type: 'string', enum: ['basic', 'advanced'] }],
      default: false,
    },
    include_raw_content: {
      description:
        "Also return each result's whole page content as `raw_content`: true or 'markdown' for markdown, 'text' " +
        'for plain text. Default false.',
      anyOf: [{ type: 'boolean' }, { type: 'string', enum: ['markdown', 'text'] }],
      default: false,
    },
    include_images: boolean('Also return images: a top-level `images` list and `images` per result. Default false.', {
      default: false,
    }),
    include_image_descriptions: boolean(
      'With include_images: images as {url, description} objects instead of plain URLs. Default false.',
      { default: false },
    ),
    include_favicon: boolean("Add each result's favicon URL. Default false.", { default: false }),
    chunks_per_source: integer(
      "With search_depth 'advanced': how many of a page's most relevant passages `content` joins (1 to 3). Default 3.",
      { minimum: 1, maximum: 3, default: 3 },
    ),
    country: string(
      "Prefer results from this country's sites (a country name such as 'united states' or 'germany'; topic " +
        'general only).',
      { maxLength: 100 },
    ),
    auto_parameters: boolean(
      "Let the service choose topic and time_range from the query's wording; explicit values win. Default false.",
      { default: false },
    ),
    exact_match: boolean('Only return pages that contain every "quoted phrase" of the query. Default false.', {
      default: false,
    }),
    include_usage: includeUsage,
  },
  ['query'],
);

const image: JsonSchema = {
  description: 'An image URL, or {url, description} with include_image_descriptions.',
  anyOf: [
    { type: 'string' },
    object({ url: string('The image URL.'), description: string('What the image shows.') }, ['url']),
  ],
};

export const USAGE: ObjectSchema = object(
  {
    credits: number('Credits this call was charged.'),
    breakdown: array(
      object(
        {
          item: string('What was priced, e.g. search:basic, answer:basic, extract:basic or map.'),
          credits: number('Credits.'),
        },
        ['item', 'credits'],
      ),
      'How the credits add up.',
    ),
  },
  ['credits'],
  { description: 'Present when the request set include_usage: true.' },
);

export const SEARCH_RESULT: ObjectSchema = object(
  {
    title: string('Title of the page.'),
    url: string('URL of the page.'),
    content: string("The most relevant passage of the page (at 'advanced' depth, the best passages joined by [...])."),
    score: number('Relevance from 0 to 1.', { minimum: 0, maximum: 1 }),
    raw_content: nullableString('The whole page content with include_raw_content, else null.'),
    favicon: nullableString('The favicon URL (with include_favicon).'),
    published_date: nullableString('When the page was published (topic news), as an HTTP date.'),
    images: array(image, 'Images of the page (with include_images).'),
  },
  ['title', 'url', 'content', 'score', 'raw_content'],
);

export const SEARCH_RESPONSE: ObjectSchema = object(
  {
    query: string('The query, as sent.'),
    answer: nullableString('The answer (with include_answer), else null.'),
    images: array(image, 'Images of the results (with include_images), else empty.'),
    results: array(ref('SearchResult'), 'The results, best first.'),
    follow_up_questions: { type: 'null', description: 'Always null (kept for older clients).' },
    auto_parameters: object({}, [], {
      description: 'With auto_parameters: the values chosen (topic, search_depth, time_range, …).',
    }),
    response_time: number('Seconds the search took.'),
    request_id: string('Identifies this request (also in the ledger and the x-request-id header).'),
    usage: ref('Usage'),
  },
  ['query', 'answer', 'images', 'results', 'response_time', 'request_id'],
);

export const EXTRACT_REQUEST: ObjectSchema = object(
  {
    urls: {
      description:
        `The pages to read: absolute http(s) URLs, at most ${MAX_EXTRACT_URLS} (one URL may also be given as a ` +
        'string). PDFs give their text; YouTube video URLs give the transcript.',
      anyOf: [
        {
          type: 'array',
          items: { type: 'string', format: 'uri' },
          minItems: 1,
          maxItems: MAX_EXTRACT_URLS,
        },
        { type: 'string', format: 'uri' },
      ],
    },
    extract_depth: enumOf(
      ['basic', 'advanced'],
      "'basic' (default): the main text. 'advanced': also tables, figure captions and embedded media, and pages " +
        'built by JavaScript are rendered in a browser; costs twice as much.',
      { default: 'basic' },
    ),
    format: enumOf(['markdown', 'text'], "Format of `raw_content`: 'markdown' (default) or plain 'text'.", {
      default: 'markdown',
    }),
    include_images: boolean("Also list each page's main images. Default false.", { default: false }),
    include_favicon: boolean("Add each page's favicon URL. Default false.", { default: false }),
    query: string(
      'Return only the passages of each page most relevant to this question (chunks_per_source of them, joined ' +
        'by [...]) instead of the whole page.',
      { maxLength: 2000 },
    ),
    chunks_per_source: integer('With query: how many passages per page, 1 to 5. Default 3.', {
      minimum: 1,
      maximum: 5,
      default: 3,
    }),
    timeout: number('Seconds allowed per URL, 1 to 60. Default 30.', { minimum: 1, maximum: 60, default: 30 }),
    include_usage: includeUsage,
  },
  ['urls'],
);

export const EXTRACT_RESULT: ObjectSchema = object(
  {
    url: string('The URL, as requested.'),
    title: nullableString('Title of the page.'),
    raw_content: string('The content of the page (or its most relevant passages with query).'),
    images: array(string('An image URL.'), 'Main images (with include_images), else empty.'),
    favicon: nullableString('The favicon URL (with include_favicon).'),
  },
  ['url', 'raw_content', 'images'],
);

export const EXTRACT_RESPONSE: ObjectSchema = object(
  {
    results: array(ref('ExtractResult'), 'The pages extracted.'),
    failed_results: array(
      object({ url: string('The URL.'), error: string('Why it failed.') }, ['url', 'error']),
      'The URLs that could not be extracted (not billed).',
    ),
    response_time: number('Seconds the extraction took.'),
    request_id: string('Identifies this request.'),
    usage: ref('Usage'),
  },
  ['results', 'failed_results', 'response_time', 'request_id'],
);

const urlPatterns = (what: string) =>
  array(string('A regular expression (RE2 syntax, at most 200 characters).', { maxLength: 200 }), what, {
    maxItems: 50,
  });

const MAP_FIELDS: Record<string, JsonSchema> = {
  url: string('Where to start: a URL, or a bare domain (https:// is assumed).', { maxLength: 2048, minLength: 1 }),
  instructions: string(
    'What to look for, in natural language: pages are ranked by relevance to it and the least relevant dropped. ' +
      'Map then costs 2 credits per 10 pages.',
    { maxLength: 2000 },
  ),
  max_depth: integer(`How many links away from the start page to go, 1 to 5. Default ${CRAWL_DEFAULTS.maxDepth}.`, {
    minimum: 1,
    maximum: 5,
    default: CRAWL_DEFAULTS.maxDepth,
  }),
  max_breadth: integer(`Links followed per page, 1 to 500. Default ${CRAWL_DEFAULTS.maxBreadth}.`, {
    minimum: 1,
    maximum: 500,
    default: CRAWL_DEFAULTS.maxBreadth,
  }),
  limit: integer(
    `Most pages returned. Default ${CRAWL_DEFAULTS.limit}; above ${MAX_PAGES_PER_CALL} it is served as ${MAX_PAGES_PER_CALL}.`,
    {
      minimum: 1,
      default: CRAWL_DEFAULTS.limit,
    },
  ),
  select_paths: urlPatterns('Only pages whose path matches one of these, e.g. /docs/.*'),
  select_domains: urlPatterns('Only pages whose host matches one of these, e.g. ^docs\\.example\\.com$'),
  exclude_paths: urlPatterns('Leave out pages whose path matches one of these.'),
  exclude_domains: urlPatterns('Leave out pages whose host matches one of these.'),
  allow_external: boolean('Whether links to other sites may be in the results. Default true.', { default: true }),
  timeout: number(
    `Seconds for the whole call, 10 to 150 (default ${CRAWL_DEFAULTS.timeoutSeconds}): what was found by then is returned.`,
    { minimum: 10, maximum: 150, default: CRAWL_DEFAULTS.timeoutSeconds },
  ),
  include_usage: includeUsage,
};

export const MAP_REQUEST: ObjectSchema = object(MAP_FIELDS, ['url']);

export const CRAWL_REQUEST: ObjectSchema = object(
  {
    ...MAP_FIELDS,
    instructions: string(
      'What to look for: pages are ranked by relevance to it, the least relevant dropped, and each page returns ' +
        'its chunks_per_source most relevant passages.',
      { maxLength: 2000 },
    ),
    extract_depth: EXTRACT_REQUEST.properties.extract_depth!,
    format: EXTRACT_REQUEST.properties.format!,
    include_images: EXTRACT_REQUEST.properties.include_images!,
    include_favicon: EXTRACT_REQUEST.properties.include_favicon!,
    chunks_per_source: integer('With instructions: passages per page, 1 to 5. Default 3.', {
      minimum: 1,
      maximum: 5,
      default: 3,
    }),
  },
  ['url'],
);

/** `cut_short` of a crawl or map that stopped before it had every page it found. */
function cutShort(run: 'crawl' | 'map'): ObjectSchema {
  const done = run === 'crawl' ? 'crawled' : 'listed';
  return object(
    {
      by: enumOf(
        ['timeout', 'limit'],
        `\`timeout\`: the time ran out (the pages ${done} by then are returned); \`limit\`: \`limit\` pages were ` +
          'taken and more were found.',
      ),
      pages_left: integer(
        `Pages found (linked within max_depth and max_breadth, or in a sitemap, and passing the filters) and not ${done}.`,
        { minimum: 0 },
      ),
    },
    ['by', 'pages_left'],
    {
      description:
        `Present when the ${run} stopped before it had every page it found: the limit that stopped it, and how ` +
        'many pages were left.',
    },
  );
}

export const MAP_RESPONSE: ObjectSchema = object(
  {
    base_url: string('The start URL, as given.'),
    results: array(string('A page URL.'), 'The pages found, in discovery order (or by relevance with instructions).'),
    cut_short: cutShort('map'),
    response_time: number('Seconds the call took.'),
    request_id: string('Identifies this request.'),
    usage: ref('Usage'),
  },
  ['base_url', 'results', 'response_time', 'request_id'],
);

export const CRAWL_RESPONSE: ObjectSchema = object(
  {
    base_url: string('The start URL, as given.'),
    results: array(
      object(
        {
          url: string('The page URL.'),
          raw_content: string('Its content (its most relevant passages with instructions).'),
          images: array(string('An image URL.'), 'Main images (with include_images), else empty.'),
          favicon: nullableString('The favicon URL (with include_favicon).'),
        },
        ['url', 'raw_content', 'images'],
      ),
      'The pages extracted.',
    ),
    cut_short: cutShort('crawl'),
    response_time: number('Seconds the call took.'),
    request_id: string('Identifies this request.'),
    usage: ref('Usage'),
  },
  ['base_url', 'results', 'response_time', 'request_id'],
);
