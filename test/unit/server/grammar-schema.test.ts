import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { actorJsonSchema } from '../../../lib/actor-step';
import { answerJsonSchema } from '../../../lib/answer';
import { generalPlanJsonSchema, generalPlanShape, reasoningJsonSchema, type ToolSpec } from '../../../lib/general-plan';
import { DEFAULT_PLAN_LIMITS, planJsonSchema } from '../../../lib/plan';
import { reviewJsonSchema } from '../../../lib/review';
import { PROBE_SCHEMA } from '../../../server/doctor/checks';
import { engine } from '../../../server/llm/embedded/engine';
import { MAX_GRAMMAR_LENGTH, toGrammarSchema } from '../../../server/llm/embedded/grammar-schema';
import { workspaceToolDescriptors } from '../../../server/mcp/workspace-tools';

/** Keywords node-llama-cpp's JSON-Schema grammar does not take: none may be left for it. */
const UNSUPPORTED = ['anyOf', 'allOf', 'pattern', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', '$schema', 'propertyNames', 'not'];

/** A tool of another MCP server whose arguments use what the grammar cannot say. */
const SEARCH_TOOL: ToolSpec = {
  qualified: 'docs.search',
  description: 'Searches the docs.',
  readOnly: true,
  inputSchema: z.toJSONSchema(
    z.strictObject({
      query: z.string().regex(/^[a-z ]+$/).min(2).max(5000),
      limit: z.int().min(1).max(50).optional(),
      scope: z.union([z.literal('all'), z.array(z.string())]),
      filters: z.record(z.string(), z.unknown()),
      since: z.iso.datetime().nullable(),
    }),
  ) as Record<string, unknown>,
};

async function everySchemaSent(): Promise<Record<string, Record<string, unknown>>> {
  const workspace = await workspaceToolDescriptors({ workspace: '/tmp', maxFileBytes: 1000, maxListEntries: 100 });
  return {
    'file plan': planJsonSchema(),
    'general plan': generalPlanJsonSchema([...workspace, SEARCH_TOOL], DEFAULT_PLAN_LIMITS),
    'reasoning step': reasoningJsonSchema(),
    answer: answerJsonSchema(),
    'reviewer verdicts': reviewJsonSchema(),
    'ReAct step': actorJsonSchema(),
    'doctor probe': PROBE_SCHEMA,
  };
}

function keywords(node: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(node)) for (const item of node) keywords(item, found);
  else if (typeof node === 'object' && node !== null) {
    for (const [key, value] of Object.entries(node)) {
      found.add(key);
      // Property names are data, not keywords.
      if (key === 'properties' || key === '$defs') for (const sub of Object.values(value as object)) keywords(sub, found);
      else keywords(value, found);
    }
  }
  return found;
}

describe('every JSON Schema planscope sends, in the grammar subset', () => {
  it('leaves no keyword the grammar does not take, and each becomes a grammar', async () => {
    const llama = await engine();
    for (const [name, schema] of Object.entries(await everySchemaSent())) {
      const mapped = toGrammarSchema(schema);
      const left = [...keywords(mapped)].filter((k) => UNSUPPORTED.includes(k));
      expect(left, name).toEqual([]);
      await expect(llama.createGrammarForJsonSchema(mapped as never), name).resolves.toBeDefined();
    }
  });

  it("keeps what the grammar can say of each: properties, closed objects, enums, constants, array and string bounds", async () => {
    const schemas = await everySchemaSent();
    expect(toGrammarSchema(schemas['file plan']!)).toEqual({
      type: 'object',
      properties: {
        steps: {
          type: 'array',
          minItems: 1,
          maxItems: 4,
          items: {
            type: 'object',
            properties: { purpose: { type: 'string', minLength: 1, maxLength: 300 }, path: { type: 'string', minLength: 1, maxLength: 200 } },
            additionalProperties: false,
          },
        },
      },
      additionalProperties: false,
    });
    expect(toGrammarSchema(schemas['ReAct step']!)).toMatchObject({ properties: { action: { enum: ['read_file', 'finish'] } } });
    const reasoning = toGrammarSchema(schemas['reasoning step']!) as { properties: Record<string, unknown> };
    // 4000 characters spelled out as a bounded repeat would slow every token; zod holds the bound.
    expect(reasoning.properties['result']).toEqual({ type: 'string' });
    expect(reasoning.properties['reason']).toEqual({ type: 'string', maxLength: 1000 });
  });

  it("turns the general plan's union of steps into alternatives, each tool's name a constant and its arguments its own", async () => {
    const general = toGrammarSchema((await everySchemaSent())['general plan']!) as { properties: { steps: { items: { oneOf: Array<{ properties: Record<string, unknown> }> } } } };
    const steps = general.properties.steps.items.oneOf;
    expect(steps.map((s) => s.properties['kind'])).toEqual([{ const: 'reason' }, { const: 'tool' }, { const: 'tool' }, { const: 'tool' }]);
    expect(steps.slice(1).map((s) => s.properties['tool'])).toEqual([{ const: 'workspace.read_file' }, { const: 'workspace.list_files' }, { const: 'docs.search' }]);
    // minimum/maximum dropped: the id is any integer to the grammar.
    expect(steps[0]!.properties['id']).toEqual({ type: 'integer' });
    expect(steps[3]!.properties['args']).toEqual({
      type: 'object',
      properties: {
        query: { type: 'string', minLength: 2 },
        limit: { type: 'integer' },
        scope: { oneOf: [{ const: 'all' }, { type: 'array', items: { type: 'string' } }] },
        filters: { type: 'object', properties: {}, additionalProperties: true },
        // The arguments' schema goes through zod and back, which writes the date-time as two patterns: a plain string here.
        since: { oneOf: [{ type: 'string' }, { type: 'null' }] },
      },
      additionalProperties: false,
    });
  });

  it('what the grammar lets through is still judged by the zod schema: an id out of range is refused as before', () => {
    const reply = { goal: 'g', steps: [{ id: 0, kind: 'reason', purpose: 'p', dependsOn: [] }] };
    expect(generalPlanShape(DEFAULT_PLAN_LIMITS).safeParse(reply).success).toBe(false);
  });
});

describe('the mapping of what the grammar cannot say', () => {
  it('says "any value" where the grammar would read an empty schema as null', () => {
    const any = toGrammarSchema({});
    expect(any).toEqual({ oneOf: [{ type: ['string', 'number', 'boolean', 'null'] }, { type: 'array' }, { type: 'object', additionalProperties: true }] });
    expect(toGrammarSchema({ type: 'object' })).toEqual({ type: 'object', additionalProperties: true });
    expect(toGrammarSchema({ type: 'object', properties: { a: {} } })).toEqual({ type: 'object', properties: { a: any } });
  });

  it('merges allOf of objects, and keeps $ref with its $defs', () => {
    expect(
      toGrammarSchema({ allOf: [{ type: 'object', properties: { a: { type: 'string' } } }, { type: 'object', properties: { b: { type: 'number', minimum: 0 } }, additionalProperties: false }] }),
    ).toEqual({ type: 'object', properties: { a: { type: 'string' }, b: { type: 'number' } }, additionalProperties: false });
    expect(toGrammarSchema({ $ref: '#/$defs/n', $defs: { n: { type: 'string', pattern: 'x+' } } })).toEqual({ $ref: '#/$defs/n', $defs: { n: { type: 'string' } } });
  });

  it('drops string bounds past the grammar limit, and a minimum above a kept maximum', () => {
    expect(toGrammarSchema({ type: 'string', minLength: 2, maxLength: MAX_GRAMMAR_LENGTH + 1 })).toEqual({ type: 'string', minLength: 2 });
    expect(toGrammarSchema({ type: 'string', minLength: 5, maxLength: 3 })).toEqual({ type: 'string', maxLength: 3 });
    expect(toGrammarSchema({ type: 'string', format: 'email' })).toEqual({ type: 'string' });
  });
});
