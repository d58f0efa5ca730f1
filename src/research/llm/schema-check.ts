/**
 * Whether `value` fits the parts of a JSON Schema that an output_schema uses (type, properties, required, items,
 * enum); null when it does, else where it does not. Keywords beyond these are not checked.
 */
export function schemaMismatch(value: unknown, schema: unknown, path = '$'): string | null {
  if (!schema || typeof schema !== 'object') return null;
  const s = schema as {
    type?: unknown;
    properties?: Record<string, unknown>;
    required?: unknown;
    items?: unknown;
    enum?: unknown;
  };
  if (Array.isArray(s.enum) && !s.enum.some((allowed) => JSON.stringify(allowed) === JSON.stringify(value))) {
    return `${path} is not one of the allowed values`;
  }
  const types = Array.isArray(s.type) ? s.type : s.type === undefined ? [] : [s.type];
  if (types.length > 0 && !types.some((type) => hasType(value, type)))
    return `${path} is not of type ${types.join('|')}`;
  if (isObject(value)) {
    const required = Array.isArray(s.required) ? s.required : [];
    for (const name of required) if (typeof name === 'string' && !(name in value)) return `${path}.${name} is missing`;
    for (const [name, sub] of Object.entries(s.properties ?? {})) {
      if (name in value) {
        const mismatch = schemaMismatch(value[name], sub, `${path}.${name}`);
        if (mismatch) return mismatch;
      }
    }
  }
  if (Array.isArray(value) && s.items) {
    for (let i = 0; i < value.length; i++) {
      const mismatch = schemaMismatch(value[i], s.items, `${path}[${i}]`);
      if (mismatch) return mismatch;
    }
  }
  return null;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  Boolean(value) && typeof value === 'object' && !Array.isArray(value);

function hasType(value: unknown, type: unknown): boolean {
  switch (type) {
    case 'object':
      return isObject(value);
    case 'array':
      return Array.isArray(value);
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'null':
      return value === null;
    default:
      return true;
  }
}
