import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import {
  ApiBody,
  ApiExtraModels,
  ApiOkResponse,
  DocumentBuilder,
  type OpenAPIObject,
  SwaggerModule,
} from '@nestjs/swagger';
import { Test } from '@nestjs/testing';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { loadOpenApiMetadata } from '../../../test/support/openapi-metadata.js';
import { type RecordsByVertical, verticalRecords } from '../../../test/support/vertical-records.js';
import { createValidationPipe } from '../../http/validation.pipe.js';
import { VERTICALS } from '../verticals.js';
import { VerticalRequestDto } from './vertical-request.dto.js';
import { VERTICAL_RESPONSE_MODELS, VERTICAL_RESPONSE_SCHEMA } from './vertical-response.dto.js';

/**
 * The generated OpenAPI of POST /search/{vertical} against real records: what the local structured-data extractors,
 * the upstream parsers and the YouTube reader make of the fixtures validates against the documented response, and
 * records that break the contract do not.
 */

@Controller()
class VerticalsDocController {
  @Post('search/:vertical')
  @HttpCode(200)
  @ApiBody({ type: VerticalRequestDto })
  @ApiExtraModels(...VERTICAL_RESPONSE_MODELS)
  @ApiOkResponse({ schema: VERTICAL_RESPONSE_SCHEMA })
  search(@Body() body: unknown): unknown {
    return body;
  }
}

/** A response as the metering pipeline sends it. */
const response = (vertical: string, results: unknown[], usage = true) => ({
  query: 'q',
  vertical,
  results,
  response_time: 0.012,
  request_id: '0b7f3c1e-5d2a-4c8e-9f61-2a7d4e0c9b13',
  ...(usage ? { usage: { credits: 1, breakdown: [{ item: `vertical:${vertical}`, credits: 1 }] } } : {}),
});

describe('the generated OpenAPI of POST /search/{vertical}', () => {
  let app: NestFastifyApplication;
  let document: OpenAPIObject;
  let records: RecordsByVertical;
  let ajv: Ajv2020;
  const valid = (name: string, value: unknown) => {
    const validate = ajv.getSchema(`openapi.json#/components/schemas/${name}`)!;
    return validate(value) ? true : validate.errors;
  };
  const validResponse = (value: unknown) => {
    const validate = ajv.getSchema('verticalResponse')!;
    return validate(value) ? true : validate.errors;
  };

  beforeAll(async () => {
    await loadOpenApiMetadata();
    const module = await Test.createTestingModule({ controllers: [VerticalsDocController] }).compile();
    app = module.createNestApplication<NestFastifyApplication>(new FastifyAdapter(), { logger: false });
    await app.init();
    document = SwaggerModule.createDocument(app, new DocumentBuilder().setOpenAPIVersion('3.1.0').build());
    ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addSchema(document, 'openapi.json');
    const operation = document.paths['/search/{vertical}']!.post!;
    const ok = operation.responses['200'] as unknown as { content: { 'application/json': { schema: object } } };
    ajv.addSchema(
      { $ref: 'openapi.json#/paths/~1search~1{vertical}/post/responses/200/content/application~1json/schema' },
      'verticalResponse',
    );
    expect(ok.content['application/json'].schema).toEqual(VERTICAL_RESPONSE_SCHEMA);
    records = await verticalRecords();
  });
  afterAll(() => app?.close());

  test('one response model per vertical, named after it, told apart by `vertical`', () => {
    const schemas = document.components!.schemas!;
    expect(VERTICAL_RESPONSE_MODELS.map((model) => model.name)).toEqual(
      VERTICALS.map((name) => `${name.replace(/(^|_)(\w)/g, (_m, _s, c: string) => c.toUpperCase())}VerticalResponse`),
    );
    const mapping = VERTICAL_RESPONSE_SCHEMA.discriminator!.mapping!;
    expect(Object.keys(mapping)).toEqual([...VERTICALS]);
    for (const vertical of VERTICALS) {
      const name = mapping[vertical]!.replace('#/components/schemas/', '');
      const schema = schemas[name] as { properties: Record<string, object>; required: string[] };
      expect(schema.properties.vertical).toMatchObject({ type: 'string', enum: [vertical] });
      expect(schema.required.sort()).toEqual(['query', 'request_id', 'response_time', 'results', 'vertical']);
      // Records have every field (null when unknown): all of them are required.
      const { $ref } = (schema.properties.results as { items: { $ref: string } }).items;
      const record = schemas[$ref.replace('#/components/schemas/', '')] as typeof schema;
      expect([vertical, record.required.sort()]).toEqual([vertical, Object.keys(record.properties).sort()]);
    }
  });

  test('every record of every vertical, from every provider, validates, and so does its response', () => {
    for (const vertical of VERTICALS) {
      const results = records[vertical] as unknown[];
      expect([vertical, results.length > 0]).toEqual([vertical, true]);
      expect([vertical, validResponse(response(vertical, results))]).toEqual([vertical, true]);
      expect([vertical, validResponse(response(vertical, results, false))]).toEqual([vertical, true]);
    }
  });

  test('records that break the contract are rejected', () => {
    const [product] = records.products as unknown as Record<string, unknown>[];
    const { price: _price, ...withoutPrice } = product!;
    expect(valid('ProductResult', product)).toBe(true);
    // A missing field (records have every field, null when unknown).
    expect(valid('ProductResult', withoutPrice)).not.toBe(true);
    expect(validResponse(response('products', [withoutPrice]))).not.toBe(true);
    // null where the field is not nullable, a provider that is not one, a fractional count.
    expect(valid('ProductResult', { ...product, title: null })).not.toBe(true);
    expect(valid('ProductResult', { ...product, provider: 'google' })).not.toBe(true);
    expect(valid('ProductResult', { ...product, reviews: 2.5 })).not.toBe(true);
    expect(valid('ProductResult', { ...product, reviews: null })).toBe(true);
    // Amazon records are products with two more fields.
    expect(valid('AmazonResult', product)).not.toBe(true);
    expect(valid('AmazonResult', { ...product, asin: null, prime: null })).toBe(true);
    // A nullable nested object: a job's salary is a Salary or null, nothing else.
    const [job] = records.jobs as unknown as Record<string, unknown>[];
    expect(valid('JobResult', { ...job, salary: null })).toBe(true);
    expect(valid('JobResult', { ...job, salary: { text: 'lots' } })).not.toBe(true);
    expect(valid('TrendsResult', { ...records.trends[0], value_type: 'percent' })).not.toBe(true);
  });

  test('responses that break the contract are rejected', () => {
    // Another vertical's records, or its name.
    expect(validResponse(response('news', records.products))).not.toBe(true);
    expect(validResponse(response('shopping', records.products))).not.toBe(true);
    const { request_id: _id, ...withoutRequestId } = response('bing', records.bing);
    expect(validResponse(withoutRequestId)).not.toBe(true);
    expect(validResponse({ ...response('bing', records.bing), usage: { breakdown: [] } })).not.toBe(true);
  });

  test('the request body: what the DTO rejects, the schema rejects', async () => {
    const pipe = createValidationPipe();
    const dtoAccepts = (body: object) =>
      pipe.transform(body, { type: 'body', metatype: VerticalRequestDto }).then(
        () => true,
        () => false,
      );
    const request = document.components!.schemas!.VerticalRequest as Record<string, Record<string, object>>;
    expect(request.properties!.max_results).toMatchObject({ type: 'integer', default: 10, minimum: 1, maximum: 20 });
    expect(request.properties!.time_range).toMatchObject({
      enum: ['day', 'week', 'month', 'year', 'd', 'w', 'm', 'y'],
    });
    expect(request.properties!.query).toMatchObject({ minLength: 1, maxLength: 400 });
    const accepted = [
      { query: 'espresso grinder', max_results: 5, country: 'us', language: 'pt-BR', time_range: 'w' },
      { url: 'https://www.youtube.com/watch?v=tIdEpOwEr01' },
      { query: 'flat', location: 'Lisbon', listing_type: 'rent', include_usage: true },
    ];
    const rejected = [
      { query: '   ' },
      { query: 'x'.repeat(401) },
      { query: 'q', max_results: 0 },
      { query: 'q', max_results: 21 },
      { query: 'q', max_results: 2.5 },
      { query: 'q', language: 'english' },
      { query: 'q', time_range: 'decade' },
      { query: 'q', listing_type: 'lease' },
      { query: 'q', include_usage: 'yes' },
    ];
    for (const body of accepted) {
      expect([body, await dtoAccepts(body), valid('VerticalRequest', body)]).toEqual([body, true, true]);
    }
    for (const body of rejected) {
      expect([body, await dtoAccepts(body), valid('VerticalRequest', body) === true]).toEqual([body, false, false]);
    }
  });
});
