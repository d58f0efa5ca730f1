import type { Type } from '@nestjs/common';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { getMetadataStorage } from 'class-validator';
import { AddMemberDto, CreateOrganizationDto } from '../organizations/dto/create-organization.dto.js';
import { RequestMagicLinkDto, VerifyMagicLinkDto } from '../auth/dto/magic-link.dto.js';
import { CrawlRequestDto } from '../crawl/dto/crawl-request.dto.js';
import { MapRequestDto } from '../crawl/dto/map-request.dto.js';
import { ExtractRequestDto } from '../extract/dto/extract-request.dto.js';
import { createValidationPipe } from '../http/validation.pipe.js';
import { CreateKeyDto, RenameKeyDto } from '../keys/dto/key.dto.js';
import { LedgerQueryDto, UsageQueryDto } from '../metering/ledger/ledger.dto.js';
import { CreateProjectDto } from '../projects/dto/create-project.dto.js';
import { SearchRequestDto } from '../search/dto/search-request.dto.js';
import { VerticalRequestDto } from '../verticals/dto/vertical-request.dto.js';
import { TOOLS } from '../mcp/mcp-tools.js';
import { openApiDocument } from './openapi-document.js';
import type { JsonSchema } from './schemas/json-schema.js';

type Doc = {
  paths: Record<string, Record<string, JsonSchema>>;
  components: { schemas: Record<string, JsonSchema>; parameters: Record<string, JsonSchema> };
};
const doc = openApiDocument({
  version: '1.0.0',
  serverUrl: 'http://localhost:3000',
  dashboardPath: '/dashboard',
}) as unknown as Doc;
const schemas = doc.components.schemas;

const dtoFields = (dto: Type) =>
  [
    ...new Set(
      getMetadataStorage()
        .getTargetValidationMetadatas(dto, '', true, false)
        .map((m) => m.propertyName),
    ),
  ].sort();
const schemaFields = (name: string) => Object.keys((schemas[name]!.properties ?? {}) as object).sort();

/** Fields the metering pipeline reads from any body, although the operation's DTO does not declare them. */
const PIPELINE_FIELDS = ['include_usage'];

const BODIES: [Type, string][] = [
  [SearchRequestDto, 'SearchRequest'],
  [ExtractRequestDto, 'ExtractRequest'],
  [MapRequestDto, 'MapRequest'],
  [CrawlRequestDto, 'CrawlRequest'],
  [VerticalRequestDto, 'VerticalRequest'],
  [RequestMagicLinkDto, 'RequestMagicLink'],
  [VerifyMagicLinkDto, 'VerifyMagicLink'],
  [CreateOrganizationDto, 'CreateOrganization'],
  [AddMemberDto, 'AddMember'],
  [CreateProjectDto, 'CreateProject'],
  [CreateKeyDto, 'CreateApiKey'],
  [RenameKeyDto, 'RenameApiKey'],
];

/** A body the DTO accepts, to vary one field of at a time. */
const VALID: Record<string, Record<string, unknown>> = {
  SearchRequest: { query: 'q' },
  ExtractRequest: { urls: ['https://example.com/'] },
  MapRequest: { url: 'https://example.com/' },
  CrawlRequest: { url: 'https://example.com/' },
  VerticalRequest: { query: 'q' },
  RequestMagicLink: { email: 'a@example.com' },
  VerifyMagicLink: { token: 't' },
  CreateOrganization: { name: 'n' },
  AddMember: { email: 'a@example.com', role: 'member' },
  CreateProject: { name: 'n' },
  CreateApiKey: { name: 'n' },
  RenameApiKey: { name: 'n' },
};

describe('the OpenAPI document', () => {
  describe('request schemas name exactly the fields of the DTOs', () => {
    test.each(BODIES)('%p ↔ %s', (dto, name) => {
      const extra = schemaFields(name).filter((field) => !dtoFields(dto).includes(field));
      expect(extra.filter((field) => !PIPELINE_FIELDS.includes(field))).toEqual([]);
      expect(dtoFields(dto).filter((field) => !schemaFields(name).includes(field))).toEqual([]);
    });

    test('query parameters of the finance routes ↔ LedgerQueryDto and UsageQueryDto', () => {
      const params = (path: string) =>
        ((doc.paths[path]!.get!.parameters ?? []) as JsonSchema[])
          .map((p) => (p.$ref ? doc.components.parameters[String(p.$ref).split('/').pop()!]! : p))
          .filter((p) => p.in === 'query')
          .map((p) => String(p.name))
          .sort();
      expect(params('/orgs/{org_id}/ledger')).toEqual(dtoFields(LedgerQueryDto));
      expect(params('/orgs/{org_id}/usage')).toEqual(dtoFields(UsageQueryDto));
    });
  });

  describe("the schemas' constraints are the DTOs' (same limits, same enumerations)", () => {
    const pipe = createValidationPipe();
    const accepts = async (dto: Type, body: Record<string, unknown>) =>
      pipe.transform(body, { type: 'body', metatype: dto }).then(
        () => true,
        () => false,
      );

    test.each(BODIES)('%p ↔ %s', async (dto, name) => {
      const base = VALID[name]!;
      expect(await accepts(dto, base)).toBe(true);
      const properties = schemas[name]!.properties as Record<string, JsonSchema>;
      for (const [field, schema] of Object.entries(properties)) {
        if (PIPELINE_FIELDS.includes(field)) continue;
        const variants = [schema, ...((schema.anyOf as JsonSchema[] | undefined) ?? [])];
        for (const variant of variants) {
          for (const value of (variant.enum as unknown[] | undefined) ?? []) {
            expect({ field, value, ok: await accepts(dto, { ...base, [field]: value }) }).toEqual({
              field,
              value,
              ok: true,
            });
          }
          if (variant.type === 'string' && Array.isArray(variant.enum)) {
            expect({ field, ok: await accepts(dto, { ...base, [field]: 'zzz-not-a-value' }) }).toEqual({
              field,
              ok: false,
            });
          }
          if (typeof variant.maximum === 'number') {
            const max = variant.maximum;
            expect({ field, max, ok: await accepts(dto, { ...base, [field]: max }) }).toEqual({ field, max, ok: true });
            expect({ field, over: max + 1, ok: await accepts(dto, { ...base, [field]: max + 1 }) }).toEqual({
              field,
              over: max + 1,
              ok: false,
            });
          }
          if (typeof variant.minimum === 'number') {
            const min = variant.minimum;
            expect({ field, min, ok: await accepts(dto, { ...base, [field]: min }) }).toEqual({ field, min, ok: true });
            expect({ field, under: min - 1, ok: await accepts(dto, { ...base, [field]: min - 1 }) }).toEqual({
              field,
              under: min - 1,
              ok: false,
            });
          }
          if (typeof variant.maxLength === 'number' && variant.type === 'string' && !variant.pattern) {
            const long = 'a'.repeat(variant.maxLength + 1);
            expect({ field, long: long.length, ok: await accepts(dto, { ...base, [field]: long }) }).toEqual({
              field,
              long: long.length,
              ok: false,
            });
          }
        }
      }
      for (const field of (schemas[name]!.required as string[] | undefined) ?? []) {
        const { [field]: _missing, ...without } = base;
        expect({ field, ok: await accepts(dto, without) }).toEqual({ field, ok: false });
      }
    });
  });

  test('every $ref resolves, operation ids are unique, and every path parameter is declared', () => {
    const refs: string[] = [];
    const visit = (node: unknown) => {
      if (Array.isArray(node)) node.forEach(visit);
      else if (node && typeof node === 'object') {
        for (const [key, value] of Object.entries(node)) {
          if (key === '$ref' && typeof value === 'string') refs.push(value);
          else visit(value);
        }
      }
    };
    visit(doc);
    for (const target of new Set(refs)) {
      const found = target
        .slice(2)
        .split('/')
        .reduce<unknown>((node, part) => (node as Record<string, unknown> | undefined)?.[part], doc);
      expect({ target, found: found !== undefined }).toEqual({ target, found: true });
    }
    const ids = Object.values(doc.paths).flatMap((methods) => Object.values(methods).map((op) => op.operationId));
    expect(new Set(ids).size).toBe(ids.length);
    for (const [path, methods] of Object.entries(doc.paths)) {
      const names = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      for (const [method, operation] of Object.entries(methods)) {
        const declared = ((operation.parameters ?? []) as JsonSchema[])
          .map((p) => (p.$ref ? doc.components.parameters[String(p.$ref).split('/').pop()!]! : p))
          .filter((p) => p.in === 'path')
          .map((p) => p.name);
        expect({ path, method, declared: declared.sort() }).toEqual({ path, method, declared: names.sort() });
      }
    }
  });

  test('every schema compiles as JSON Schema 2020-12, and so do the MCP tool schemas', () => {
    const ajv = new Ajv2020({ strict: false, discriminator: true });
    addFormats.default(ajv);
    ajv.addSchema(doc, 'openapi.json');
    for (const name of Object.keys(schemas)) {
      expect(() => ajv.getSchema(`openapi.json#/components/schemas/${name}`)).not.toThrow();
    }
    for (const tool of TOOLS) {
      expect(JSON.stringify(tool.inputSchema)).not.toContain('$ref');
      expect(() => ajv.compile(tool.inputSchema)).not.toThrow();
      expect(() => ajv.compile(tool.outputSchema!)).not.toThrow();
    }
  });
});
