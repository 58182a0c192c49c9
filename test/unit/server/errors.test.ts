import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { actionOutcome, isRequestError, parseOrRefuse, PlanscopeError, RequestError } from '../../../server/errors';
import { ConfigError } from '../../../server/config';
import { RunStop } from '../../../server/engine/context';

describe('the domain error', () => {
  it('is recognised by its marker, as a copy from another bundle would be, and not by its name', () => {
    const refusal = new RequestError('run_not_found', 'There is no run x.');
    expect(isRequestError(refusal)).toBe(true);
    expect(PlanscopeError.isInstance(refusal)).toBe(true);
    expect(refusal.status).toBe(404);
    // Another module instance's RequestError: another class, the same global symbols.
    const elsewhere = Object.assign(new Error('There is no run x.'), { code: 'run_not_found', [Symbol.for('planscope.error')]: true, [Symbol.for('planscope.error.request')]: true });
    expect(isRequestError(elsewhere)).toBe(true);
    const lookalike = Object.assign(new Error('x'), { name: 'RequestError', code: 'run_not_found', status: 404 });
    expect(isRequestError(lookalike)).toBe(false);
    expect(PlanscopeError.isInstance(new ConfigError('x'))).toBe(true);
    expect(PlanscopeError.isInstance(new RunStop('timeout', 'x'))).toBe(true);
    expect(isRequestError(new ConfigError('x'))).toBe(false);
    expect(PlanscopeError.isInstance(new Error('x'))).toBe(false);
  });

  it('refuses what a schema does not read with its first issue, where it is and what is wrong', () => {
    const Body = z.object({ round: z.number().int(), note: z.string() });
    expect(parseOrRefuse(Body, { round: 1, note: 'ok' }, 'request')).toEqual({ round: 1, note: 'ok' });
    const refusal = (input: unknown) => {
      try {
        parseOrRefuse(Body, input, 'decision', 'suite_invalid');
      } catch (error) {
        return isRequestError(error) ? { code: error.code, message: error.message } : error;
      }
    };
    expect(refusal({ round: 1.5, note: 'x' })).toEqual({ code: 'suite_invalid', message: expect.stringMatching(/^round: /) });
    expect(refusal('nothing')).toEqual({ code: 'suite_invalid', message: expect.stringMatching(/^decision: /) });
  });

  it('answers a server action with its refusal, or internal saying what could not be done', async () => {
    expect(await actionOutcome('act', 'It could not be done', async () => ({ ok: true as const }))).toEqual({ ok: true });
    const rejections = [{ code: 'schema_invalid' as const, message: 'no', step: 0 }];
    const refused = await actionOutcome('act', 'It could not be done', () => Promise.reject(new RequestError('plan_rejected', 'Refused.', rejections)));
    expect(refused).toEqual({ ok: false, error: { code: 'plan_rejected', message: 'Refused.' }, rejections });
    const errors: unknown[] = [];
    const log = console.error;
    console.error = (...args: unknown[]) => errors.push(args);
    try {
      const failed = await actionOutcome('act', 'It could not be done', () => Promise.reject(new Error('disk full')));
      expect(failed).toEqual({ ok: false, error: { code: 'internal', message: 'It could not be done: disk full' }, rejections: [] });
    } finally {
      console.error = log;
    }
    expect(errors).toHaveLength(1);
  });
});
