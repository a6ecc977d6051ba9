/**
 * OpenAPI 3.1 schemas -> TypeScript, for the subset the Obolus document uses: objects,
 * arrays, scalars, null, enum, const, anyOf, $ref and string maps. Anything else fails
 * loudly, so a new kind of schema cannot slip into the SDK as `any`.
 */
// biome-ignore lint/suspicious/noExplicitAny: plain JSON of OpenAPI's shape
type Schema = Record<string, any>;

const refName = (ref: string) => ref.slice(ref.lastIndexOf('/') + 1);
const pascal = (id: string) => id[0]?.toUpperCase() + id.slice(1);
const key = (name: string) => (/^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(name));
const comment = (schema: Schema, indent: string) =>
  schema.description ? `${indent}/** ${String(schema.description).replace(/\*\//g, '*\\/')} */\n` : '';

export function typeOf(schema: Schema, indent = ''): string {
  if (schema.$ref) return refName(schema.$ref);
  if (schema.anyOf) return schema.anyOf.map((s: Schema) => typeOf(s, indent)).join(' | ');
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.enum) return schema.enum.map((v: unknown) => JSON.stringify(v)).join(' | ');
  switch (schema.type) {
    case 'string':
      return 'string';
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array':
      return `Array<${typeOf(schema.items, indent)}>`;
    case 'object':
      return objectType(schema, indent);
    case undefined:
      if (Object.keys(schema).every((k) => k === 'description')) return 'unknown';
  }
  throw new Error(`api-types: no TypeScript for schema ${JSON.stringify(schema)}`);
}

function objectType(schema: Schema, indent: string): string {
  const properties = Object.entries((schema.properties ?? {}) as Record<string, Schema>);
  if (properties.length === 0 && typeof schema.additionalProperties === 'object') {
    return `Record<string, ${typeOf(schema.additionalProperties, indent)}>`;
  }
  const required = new Set<string>(schema.required ?? []);
  const inner = `${indent}  `;
  const lines = properties.map(
    ([name, property]) =>
      `${comment(property, inner)}${inner}${key(name)}${required.has(name) ? '' : '?'}: ${typeOf(property, inner)};\n`,
  );
  return `{\n${lines.join('')}${indent}}`;
}

/** The query parameters of an operation as one object type. */
function queryType(parameters: Schema[]): string | undefined {
  const query = parameters.filter((p) => p.in === 'query');
  if (query.length === 0) return undefined;
  const properties = Object.fromEntries(query.map((p) => [p.name, p.schema]));
  return objectType({ type: 'object', properties, required: query.filter((p) => p.required).map((p) => p.name) }, '');
}

export function apiTypesOf(document: Schema): string {
  const out = [
    '// Generated from docs/openapi.json by `npm run openapi` (packages/node/scripts/api-types.ts). Do not edit.\n',
  ];
  for (const [name, schema] of Object.entries(document.components.schemas as Record<string, Schema>)) {
    out.push(`\n${comment(schema, '')}export interface ${name} ${typeOf(schema)}\n`);
  }
  for (const item of Object.values(document.paths as Record<string, Record<string, Schema>>)) {
    for (const operation of Object.values(item)) {
      if (!operation.operationId) continue;
      const base = pascal(operation.operationId);
      const body = operation.requestBody?.content?.['application/json']?.schema;
      if (body) out.push(`\nexport type ${base}Body = ${typeOf(body)};\n`);
      const query = queryType(operation.parameters ?? []);
      if (query) out.push(`\nexport type ${base}Query = ${query};\n`);
    }
  }
  return out.join('');
}
