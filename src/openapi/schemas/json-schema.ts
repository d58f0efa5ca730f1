/** A JSON Schema (2020-12, as OpenAPI 3.1 and MCP tool schemas use it), written as a plain object. */
export type JsonSchema = { [keyword: string]: unknown };

/** An object schema: what an MCP tool's `inputSchema` and `outputSchema` must be. */
export interface ObjectSchema extends JsonSchema {
  type: 'object';
  properties: Record<string, JsonSchema>;
  required?: string[];
}

export const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

export function object(properties: Record<string, JsonSchema>, required: string[] = [], extra: JsonSchema = {}) {
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}), ...extra } as ObjectSchema;
}

export const string = (description: string, extra: JsonSchema = {}): JsonSchema => ({
  type: 'string',
  description,
  ...extra,
});

export const nullableString = (description: string, extra: JsonSchema = {}): JsonSchema => ({
  type: ['string', 'null'],
  description,
  ...extra,
});

export const integer = (description: string, extra: JsonSchema = {}): JsonSchema => ({
  type: 'integer',
  description,
  ...extra,
});

export const number = (description: string, extra: JsonSchema = {}): JsonSchema => ({
  type: 'number',
  description,
  ...extra,
});

export const nullableNumber = (description: string, extra: JsonSchema = {}): JsonSchema => ({
  type: ['number', 'null'],
  description,
  ...extra,
});

export const boolean = (description: string, extra: JsonSchema = {}): JsonSchema => ({
  type: 'boolean',
  description,
  ...extra,
});

export const array = (items: JsonSchema, description: string, extra: JsonSchema = {}): JsonSchema => ({
  type: 'array',
  items,
  description,
  ...extra,
});

export const enumOf = (values: readonly string[], description: string, extra: JsonSchema = {}): JsonSchema => ({
  type: 'string',
  enum: [...values],
  description,
  ...extra,
});

/** Inlines every `#/components/schemas/…` reference (MCP tool schemas must stand alone). */
export function inlineRefs(schema: JsonSchema, components: Record<string, JsonSchema>): JsonSchema {
  const visit = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(visit);
    if (!node || typeof node !== 'object') return node;
    const record = node as JsonSchema;
    if (typeof record.$ref === 'string' && record.$ref.startsWith('#/components/schemas/')) {
      const name = record.$ref.slice('#/components/schemas/'.length);
      const target = components[name];
      if (!target) throw new Error(`unknown schema ${name}`);
      const { $ref: _ref, ...rest } = record;
      return { ...(visit(target) as JsonSchema), ...rest };
    }
    return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, visit(value)]));
  };
  return visit(schema) as JsonSchema;
}
