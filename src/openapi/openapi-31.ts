/**
 * @nestjs/swagger writes OpenAPI 3.0 schemas (`nullable: true`); the document is OpenAPI 3.1, whose schemas are
 * JSON Schema 2020-12. This rewrites the 3.0 forms in place: `{type: T, nullable: true}` becomes `{type: [T, 'null']}`,
 * a nullable `$ref` or `allOf` becomes `anyOf: [..., {type: 'null'}]`, and a nullable `enum` also lists `null`.
 */
export function toOpenApi31Schemas(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) toOpenApi31Schemas(item);
    return;
  }
  if (!node || typeof node !== 'object') return;
  const schema = node as Record<string, unknown>;
  for (const value of Object.values(schema)) toOpenApi31Schemas(value);
  if (schema.nullable !== true) {
    if (schema.nullable === false) delete schema.nullable;
    return;
  }
  delete schema.nullable;
  if (typeof schema.type === 'string') {
    schema.type = [schema.type, 'null'];
    if (Array.isArray(schema.enum) && !schema.enum.includes(null)) schema.enum = [...schema.enum, null];
  } else if (typeof schema.$ref === 'string' || Array.isArray(schema.allOf)) {
    const { $ref, allOf, ...rest } = schema;
    const inner = $ref ? { $ref } : { allOf };
    for (const key of Object.keys(schema)) delete schema[key];
    Object.assign(schema, rest, { anyOf: [inner, { type: 'null' }] });
  } else if (Array.isArray(schema.oneOf) || Array.isArray(schema.anyOf)) {
    const key = Array.isArray(schema.oneOf) ? 'oneOf' : 'anyOf';
    (schema[key] as unknown[]).push({ type: 'null' });
  } else if (Array.isArray(schema.enum) && !schema.enum.includes(null)) {
    schema.enum = [...schema.enum, null];
  }
}
