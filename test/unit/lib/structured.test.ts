import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { actorJsonSchema, parseActorStep } from '../../../lib/actor-step';
import { answerJsonSchema } from '../../../lib/answer';
import { structuredOutput } from '../../../lib/structured';

describe('structuredOutput', () => {
  const output = structuredOutput(z.strictObject({ n: z.int() }), 'a count');

  it('gives the JSON Schema of its zod schema, converted once', () => {
    expect(output.jsonSchema()).toMatchObject({ type: 'object', properties: { n: { type: 'integer' } }, additionalProperties: false });
    expect(output.jsonSchema()).toBe(output.jsonSchema());
    expect(answerJsonSchema()).toBe(answerJsonSchema());
    expect(actorJsonSchema()).toBe(actorJsonSchema());
  });

  it('parses a reply, and names what it expected when the reply is not of it', () => {
    expect(output.parse('{"n": 3}', 'stop')).toEqual({ ok: true, value: { n: 3 } });
    expect(output.parse('', 'stop')).toEqual({ ok: false, message: 'The model returned empty content instead of a count.' });
    expect(output.parse('{"n": "3"}', 'stop')).toMatchObject({ ok: false, message: expect.stringMatching(/^A count does not match the schema: n: /) });
    expect(parseActorStep('{"thought": "t", "action": "finish", "path": ""}', 'stop')).toMatchObject({ ok: true, value: { action: 'finish' } });
  });
});
