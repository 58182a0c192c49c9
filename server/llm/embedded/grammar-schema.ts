import type { JsonSchema } from '../stage-input';

/**
 * The JSON Schema a call sends (made from zod), said in the subset
 * node-llama-cpp turns into a grammar. The grammar only narrows what the
 * model may write; the reply is parsed by the same zod schema afterwards, so
 * whatever is dropped here is still enforced there, with the same codes.
 *
 * What the grammar cannot say, and what becomes of it:
 * - `anyOf` (zod's unions) -> `oneOf`: the same alternatives to generate from;
 * - `allOf` -> one schema of its members' keywords (properties joined), then mapped as the rest;
 * - `pattern`, `minimum`/`maximum`, `exclusiveMinimum`/`exclusiveMaximum`, `multipleOf`,
 *   `format` other than date and time, `not`, `if`/`then`/`else`, `propertyNames`,
 *   `patternProperties`, `uniqueItems`, `contains`, `$schema`, `$id`, `title`, `default`,
 *   `examples`: dropped;
 * - `maxLength` above `MAX_GRAMMAR_LENGTH`: dropped (the grammar spells a bounded repeat
 *   out, and a long one slows every token);
 * - `required`: the grammar generates every listed property anyway, which zod accepts;
 * - `{}` (zod's `unknown`): any JSON value, said explicitly, since the grammar reads an
 *   empty schema as `null`; `additionalProperties: {}` likewise becomes `true`;
 * - an object with no `properties` and no `additionalProperties`: any object (JSON Schema's
 *   meaning), where the grammar would allow only `{}`.
 */

/** A string bound the grammar keeps; a longer one is left to zod. */
export const MAX_GRAMMAR_LENGTH = 1000;

const ANY_VALUE: JsonSchema = {
  oneOf: [{ type: ['string', 'number', 'boolean', 'null'] }, { type: 'array' }, { type: 'object', additionalProperties: true }],
};

const GRAMMAR_FORMATS = new Set(['date-time', 'time', 'date']);
const BASIC_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'null']);

export function toGrammarSchema(schema: JsonSchema): JsonSchema {
  return mapped(schema);
}

function mapped(node: unknown): JsonSchema {
  if (node === true || !isSchema(node)) return ANY_VALUE;
  const description = typeof node['description'] === 'string' ? { description: node['description'] } : {};
  const defs = isSchema(node['$defs']) ? { $defs: mapValues(node['$defs']) } : {};
  const extra = { ...description, ...defs };

  if (typeof node['$ref'] === 'string') return { $ref: node['$ref'], ...extra };
  if ('const' in node) return { const: node['const'] as JsonSchema[string], ...extra };
  if (Array.isArray(node['enum'])) return { enum: node['enum'] as unknown[], ...extra };

  const alternatives = Array.isArray(node['anyOf']) ? node['anyOf'] : Array.isArray(node['oneOf']) ? node['oneOf'] : null;
  if (alternatives) {
    const options = alternatives.map(mapped);
    return options.length === 1 ? { ...options[0], ...extra } : { oneOf: options, ...extra };
  }
  if (Array.isArray(node['allOf'])) return { ...mergedAllOf(node, node['allOf']), ...extra };

  const type = node['type'];
  if (Array.isArray(type)) {
    const types = type.filter((t): t is string => typeof t === 'string');
    if (types.every((t) => BASIC_TYPES.has(t) && t !== 'string')) return { type: types, ...extra };
    // Each type with its own keywords: an object's properties, an array's items, a string's bounds.
    return { oneOf: types.map((t) => mapped({ ...node, type: t })), ...extra };
  }
  switch (type) {
    case 'object':
      return { ...objectSchema(node), ...extra };
    case 'array':
      return { ...arraySchema(node), ...extra };
    case 'string':
      return { ...stringSchema(node), ...extra };
    case 'number':
    case 'integer':
    case 'boolean':
    case 'null':
      return { type, ...extra };
    default:
      return { ...ANY_VALUE, ...extra };
  }
}

function objectSchema(node: Record<string, unknown>): JsonSchema {
  const properties = isSchema(node['properties']) ? mapValues(node['properties']) : null;
  const additional = node['additionalProperties'];
  const out: JsonSchema = { type: 'object' };
  if (properties) out['properties'] = properties;
  if (additional === false) out['additionalProperties'] = false;
  else if (additional === true || (additional === undefined && !properties)) out['additionalProperties'] = true;
  else if (isSchema(additional)) out['additionalProperties'] = Object.keys(additional).length === 0 ? true : mapped(additional);
  for (const key of ['minProperties', 'maxProperties'] as const) if (typeof node[key] === 'number') out[key] = node[key];
  return out;
}

function arraySchema(node: Record<string, unknown>): JsonSchema {
  const out: JsonSchema = { type: 'array' };
  if (node['items'] !== undefined && node['items'] !== false) out['items'] = mapped(node['items']);
  if (Array.isArray(node['prefixItems'])) out['prefixItems'] = node['prefixItems'].map(mapped);
  for (const key of ['minItems', 'maxItems'] as const) if (typeof node[key] === 'number') out[key] = node[key];
  return out;
}

function stringSchema(node: Record<string, unknown>): JsonSchema {
  if (typeof node['format'] === 'string' && GRAMMAR_FORMATS.has(node['format'])) return { type: 'string', format: node['format'] };
  const out: JsonSchema = { type: 'string' };
  const min = node['minLength'];
  const max = node['maxLength'];
  const keepMax = typeof max === 'number' && max <= MAX_GRAMMAR_LENGTH;
  if (typeof min === 'number' && min > 0 && min <= MAX_GRAMMAR_LENGTH && (!keepMax || min <= max)) out['minLength'] = min;
  if (keepMax) out['maxLength'] = max;
  return out;
}

/**
 * One schema of the node's own keywords and its members' (as zod writes a
 * string with two patterns, or objects extended), their properties joined
 * and closed when any member is closed; a member that is not a schema
 * leaves any value.
 */
function mergedAllOf(node: Record<string, unknown>, members: unknown[]): JsonSchema {
  if (!members.every(isSchema)) return ANY_VALUE;
  const own = Object.fromEntries(Object.entries(node).filter(([key]) => key !== 'allOf'));
  const parts = [own, ...members];
  const merged: Record<string, unknown> = Object.assign({}, ...parts);
  const properties = parts.map((p) => p['properties']).filter(isSchema);
  if (properties.length > 0) merged['properties'] = Object.assign({}, ...properties);
  if (parts.some((p) => p['additionalProperties'] === false)) merged['additionalProperties'] = false;
  return mapped(merged);
}

function mapValues(record: Record<string, unknown>): JsonSchema {
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, mapped(value)]));
}

function isSchema(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
