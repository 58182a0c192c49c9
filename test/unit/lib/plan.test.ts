import { describe, expect, it } from 'vitest';
import { parsePlan, planJsonSchema } from '../../../lib/plan';

const step = (path: string, purpose = 'Read it') => ({ purpose, path });

describe('the Plan schema', () => {
  it('accepts a plan of two file reads', () => {
    const raw = JSON.stringify({ steps: [{ purpose: '取得環境設定', path: 'src/ironman/config.py' }] });
    expect(parsePlan(raw, 'stop')).toEqual({ ok: true, value: { steps: [step('src/ironman/config.py', '取得環境設定')] } });
  });

  it.each([
    ['extra key on a step', { steps: [{ ...step('a.ts'), why: 'x' }] }, 'Unrecognized key'],
    ['extra key on the plan', { steps: [step('a.ts')], goal: 'x' }, 'Unrecognized key'],
    ['no steps', { steps: [] }, 'steps'],
    ['five steps', { steps: ['a', 'b', 'c', 'd', 'e'].map((p) => step(p)) }, 'steps'],
    ['empty purpose', { steps: [step('a.ts', '')] }, 'purpose'],
    ['purpose over 300', { steps: [step('a.ts', 'x'.repeat(301))] }, 'purpose'],
    ['path over 200', { steps: [step('a'.repeat(201))] }, 'path'],
    ['empty path', { steps: [step('')] }, 'path'],
    ['wrong type', { steps: 'src/config.ts' }, 'steps'],
  ])('rejects %s', (_name, value, mentions) => {
    const parsed = parsePlan(JSON.stringify(value), 'stop');
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.message).toContain(mentions);
  });

  it.each([
    ['empty content', '', 'empty content'],
    ['whitespace', '  \n ', 'empty content'],
    ['a markdown fence', '```json\n{"steps":[]}\n```', 'not valid JSON'],
    ['prose', 'Sure! Here is the plan.', 'not valid JSON'],
  ])('rejects %s', (_name, raw, mentions) => {
    const parsed = parsePlan(raw, 'stop');
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.message).toContain(mentions);
  });

  it('says when the output was cut off at the token limit', () => {
    const parsed = parsePlan('{"steps":[{"purpose":"x","pa', 'length');
    expect(!parsed.ok && parsed.message).toContain('done_reason "length"');
  });

  it('generates the JSON Schema from the same zod schema, strict and bounded', () => {
    const schema = planJsonSchema({ maxSteps: 3, maxPurposeChars: 100, maxPathChars: 50 }) as {
      additionalProperties: boolean;
      properties: { steps: { maxItems: number; items: { additionalProperties: boolean; properties: { path: { maxLength: number } } } } };
    };
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties.steps.maxItems).toBe(3);
    expect(schema.properties.steps.items.additionalProperties).toBe(false);
    expect(schema.properties.steps.items.properties.path.maxLength).toBe(50);
  });

  it('applies configured limits when parsing', () => {
    const two = JSON.stringify({ steps: [step('a.ts'), step('b.ts')] });
    expect(parsePlan(two, 'stop', { maxSteps: 1, maxPurposeChars: 300, maxPathChars: 200 }).ok).toBe(false);
  });
});
