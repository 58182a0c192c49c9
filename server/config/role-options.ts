import { z } from 'zod';
import { CallLabel, type CallOptions } from '../../lib/events';
import { ConfigError } from '../errors';

/** Ollama sampling settings, as the global variables (server/config/index.ts) and each role's spell them. */
export const Temperature = z.coerce.number().min(0).max(2);
export const NumPredict = z.coerce.number().int().min(1).max(131_072);
export const Think = z.enum(['true', 'false']).transform((v) => v === 'true');

type Sampling = Omit<CallOptions, 'numCtx'>;

/** Every role's sampling when nothing is configured. */
const BUILT_IN_SAMPLING: Sampling = { temperature: 0.1, numPredict: 1600, think: false };

/**
 * Roles whose calls call for other settings than the rest. The planner
 * samples at 0.3: a plan should come out much the same each time, but at 0
 * a local model repeats a plan that failed instead of finding another way.
 * Thinking stays off for it, since with thinking on some local models put
 * the whole reply in the thinking and leave the content empty. A reasoning
 * step (the executor) answers in a few sentences: 0.2, and 512 tokens are
 * plenty.
 */
const ROLE_SAMPLING: Partial<Record<CallLabel, Partial<Sampling>>> = {
  planner: { temperature: 0.3, numPredict: 1600, think: false },
  executor: { temperature: 0.2, numPredict: 512 },
};

/** `PLANSCOPE_PLANNER_TEMPERATURE` and its siblings, for each role. */
const RoleSamplingEnv = z.object({ TEMPERATURE: Temperature.optional(), NUM_PREDICT: NumPredict.optional(), THINK: Think.optional() });

/**
 * The options each role's calls are made with. Each setting is taken from
 * the first of: the role's own variable (`PLANSCOPE_<ROLE>_TEMPERATURE`,
 * `_NUM_PREDICT`, `_THINK`), the global one (`PLANSCOPE_TEMPERATURE`, ...),
 * the role's default (`ROLE_SAMPLING`), the built-in default. A global
 * variable overrides the roles' defaults so that one setting (say
 * temperature 0 for a reproducible run) reaches every call. `defined` is
 * the environment with its empty variables left out.
 */
export function callOptionsByRole(defined: Record<string, string>, global: Partial<Sampling> & { numCtx: number }): Record<CallLabel, CallOptions> {
  const entries = CallLabel.options.map((role): [CallLabel, CallOptions] => {
    const prefix = `PLANSCOPE_${role.toUpperCase()}_`;
    const parsed = RoleSamplingEnv.safeParse({
      TEMPERATURE: defined[`${prefix}TEMPERATURE`],
      NUM_PREDICT: defined[`${prefix}NUM_PREDICT`],
      THINK: defined[`${prefix}THINK`],
    });
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new ConfigError(`Invalid configuration: ${prefix}${String(issue?.path[0] ?? '')}: ${issue?.message ?? 'invalid'}`);
    }
    const own = parsed.data;
    const seed = ROLE_SAMPLING[role] ?? {};
    return [
      role,
      {
        temperature: own.TEMPERATURE ?? global.temperature ?? seed.temperature ?? BUILT_IN_SAMPLING.temperature,
        numPredict: own.NUM_PREDICT ?? global.numPredict ?? seed.numPredict ?? BUILT_IN_SAMPLING.numPredict,
        think: own.THINK ?? global.think ?? seed.think ?? BUILT_IN_SAMPLING.think,
        numCtx: global.numCtx,
      },
    ];
  });
  return Object.fromEntries(entries) as Record<CallLabel, CallOptions>;
}
