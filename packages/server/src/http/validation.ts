import { Ajv, type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance, FastifySchemaCompiler } from 'fastify';
import { ApiError } from '../domain/errors.ts';

/**
 * Bodies are validated strictly: no type coercion ("100" is not an amount), no silent
 * removal of unknown fields. Query strings and path parameters are text by nature, so
 * their numbers are coerced.
 */
const shared = {
  allErrors: false,
  verbose: true,
  strict: true,
  useDefaults: false,
  removeAdditional: false,
} as const;
const strictAjv = addFormats.default(new Ajv({ ...shared, coerceTypes: false }));
const coercingAjv = addFormats.default(new Ajv({ ...shared, coerceTypes: true }));

/**
 * After the schema, every text of the request (values and keys, at any depth) is checked for
 * characters no field may hold: control characters other than tab and line breaks (NUL cannot
 * be stored by PostgreSQL) and unpaired UTF-16 surrogates (not storable as UTF-8).
 */
export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? strictAjv : coercingAjv;
  const validate = ajv.compile(schema as object);
  const check = (data: unknown) => {
    if (!validate(data)) {
      check.errors = validate.errors;
      return false;
    }
    const found = firstRefused(data);
    if (found === undefined) return true;
    const param = paramName(httpPart ?? 'body', found.at);
    // Ajv coerces `1e309` in a query string to Infinity and lets it through integer and maximum.
    return { error: found.why === 'text' ? unsafeTextError(param) : nonFiniteError(param) };
  };
  check.errors = null as typeof validate.errors;
  return check as never;
};

// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters refused
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;

const unsafeText = (text: string) => CONTROL.test(text) || !text.isWellFormed();

type Refusal = 'text' | 'number';

function refusalOf(leaf: unknown): Refusal | undefined {
  if (typeof leaf === 'string') return unsafeText(leaf) ? 'text' : undefined;
  if (typeof leaf === 'number') return Number.isFinite(leaf) ? undefined : 'number';
  return undefined;
}

const pointerToken = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * The JSON pointer of the first key or value no field may hold, and why; texts are refused
 * before numbers. The pointer is built only for what is refused: this runs on every request.
 */
function firstRefused(value: unknown): { at: string; why: Refusal } | undefined {
  const text = firstAt(value, 'text');
  if (text !== undefined) return { at: text, why: 'text' };
  const number = firstAt(value, 'number');
  return number === undefined ? undefined : { at: number, why: 'number' };
}

function firstAt(value: unknown, why: Refusal): string | undefined {
  if (value === null || typeof value !== 'object') return refusalOf(value) === why ? '' : undefined;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (why === 'text' && unsafeText(key)) return `/${pointerToken(key)}`;
    const below = firstAt((value as Record<string, unknown>)[key], why);
    if (below !== undefined) return `/${pointerToken(key)}${below}`;
  }
  return undefined;
}

function nonFiniteError(param: string): ApiError {
  return new ApiError('parameter_invalid', `${param} must be a finite number.`, param);
}

function unsafeTextError(param: string): ApiError {
  return new ApiError(
    'parameter_invalid',
    `${param} must not contain control characters (such as NUL) or unpaired UTF-16 surrogates.`,
    param,
  );
}

/** `/metadata/size` -> `metadata[size]`, the way merchants name nested parameters. */
function paramName(prefix: string, instancePath: string, extra?: string): string {
  const parts = instancePath
    .split('/')
    .filter(Boolean)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (extra !== undefined) parts.push(extra);
  const [head, ...rest] = parts;
  if (head === undefined) return prefix;
  return head + rest.map((p) => `[${p}]`).join('');
}

const TYPE_NAMES: Record<string, string> = {
  integer: 'an integer',
  number: 'a number',
  string: 'a string',
  object: 'an object',
  boolean: 'a boolean',
  array: 'an array',
};

function describeType(type: unknown): string {
  const types = Array.isArray(type) ? type : [type];
  return types
    .filter((t) => t !== 'null')
    .map((t) => TYPE_NAMES[String(t)] ?? String(t))
    .join(' or ');
}

function bounds(schema: Record<string, unknown>, min: string, max: string): [unknown, unknown] {
  return [schema[min], schema[max]];
}

/** Turns the first schema violation into the public error, naming the field. */
export function validationError(errors: ErrorObject[], part: string): ApiError {
  const error = errors[0];
  if (!error) return new ApiError('parameter_invalid', 'The request is invalid.');
  const parent = (error.parentSchema ?? {}) as Record<string, unknown>;
  const params = error.params as Record<string, unknown>;
  if (error.instancePath === '' && error.keyword === 'type') {
    return new ApiError('body_invalid', `The request ${part} must be a JSON object.`);
  }
  if (error.keyword === 'required') {
    const param = paramName(part, error.instancePath, String(params.missingProperty));
    return new ApiError('parameter_missing', `Missing required parameter: ${param}.`, param);
  }
  if (error.keyword === 'additionalProperties') {
    const param = paramName(part, error.instancePath, String(params.additionalProperty));
    return new ApiError('parameter_unknown', `Received unknown parameter: ${param}.`, param);
  }
  const param = paramName(part, error.instancePath);
  switch (error.keyword) {
    case 'type':
      return new ApiError('parameter_invalid', `${param} must be ${describeType(params.type)}.`, param);
    case 'minimum':
    case 'maximum': {
      const [min, max] = bounds(parent, 'minimum', 'maximum');
      const range = min !== undefined && max !== undefined ? `from ${min} to ${max}` : `${error.message}`;
      return new ApiError('parameter_invalid', `${param} must be ${describeType(parent.type)} ${range}.`, param);
    }
    case 'minLength':
    case 'maxLength': {
      const [min, max] = bounds(parent, 'minLength', 'maxLength');
      const length = min !== undefined ? `${min} to ${max} characters` : `at most ${max} characters`;
      return new ApiError('parameter_invalid', `${param} must be ${length} long.`, param);
    }
    case 'enum':
      return new ApiError(
        'parameter_invalid',
        `${param} must be one of: ${(params.allowedValues as unknown[]).join(', ')}.`,
        param,
      );
    default:
      return new ApiError('parameter_invalid', `${param} ${error.message ?? 'is invalid'}.`, param);
  }
}

/** No request needs more; a deeper body would exhaust the stack of recursive code after it. */
export const MAX_BODY_DEPTH = 32;

/** How deeply `value` nests arrays and objects, counted without recursion (the body may be 60,000 levels deep). */
function depthOf(value: unknown): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop() as [unknown, number];
    if (item === null || typeof item !== 'object') continue;
    if (depth + 1 > deepest) deepest = depth + 1;
    if (deepest > MAX_BODY_DEPTH) return deepest;
    for (const child of Object.values(item)) stack.push([child, depth + 1]);
  }
  return deepest;
}

/** Refuses a body nested deeper than MAX_BODY_DEPTH before any route or plugin walks it. */
export function refuseDeepBodies(app: FastifyInstance): void {
  app.addHook('preValidation', (request, _reply, done) => {
    if (request.body === undefined || depthOf(request.body) <= MAX_BODY_DEPTH) return done();
    done(
      new ApiError('body_invalid', `The request body nests more than ${MAX_BODY_DEPTH} levels of arrays and objects.`),
    );
  });
}
