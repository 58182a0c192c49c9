import { z } from 'zod';
import { ReadinessErrorCode } from './codes';
import { CallLabel, type CallOptions } from './events';

/**
 * What a run needs of an Ollama server and of a model before it starts,
 * judged from `/api/version` and `/api/show`. Pure, so the health line, the
 * run form, the CLI and `planscope doctor` all judge alike.
 */

/**
 * The oldest Ollama releases with what planscope relies on: a JSON schema as
 * `format` (structured outputs, v0.5.0) and the `think` field (v0.9.0).
 * Older servers ignore what they do not know, so a prompt would be answered
 * unconstrained or a model would think into its reply.
 */
export const MIN_OLLAMA_VERSION = { structuredOutputs: '0.5.0', think: '0.9.0' } as const;

/**
 * What `/api/version` says of an Ollama built from its source without a
 * release's version stamped in (seen from v0.24.0 built with `go build .`):
 * not an old server but one whose version says nothing, judged as unknown.
 */
export const UNSTAMPED_OLLAMA_VERSION = '0.0.0';

/** A version that says what the server can do: not null, not an unstamped build. */
export function knownVersion(version: string | null): version is string {
  return version !== null && version.trim() !== UNSTAMPED_OLLAMA_VERSION;
}

/** What `/api/show` says of a model; null where the server did not say. */
export const ModelFacts = z.object({
  name: z.string(),
  /** `completion`, `thinking`, `tools`, `vision`, ...; null from servers older than the field. */
  capabilities: z.array(z.string()).nullable(),
  /** `<architecture>.context_length` of `model_info`: the most the model can take. */
  contextLength: z.number().nullable(),
});
export type ModelFacts = z.infer<typeof ModelFacts>;

export const ReadinessProblem = z.object({
  code: ReadinessErrorCode,
  message: z.string(),
  /** The role the problem is for; absent when it is the server's. */
  role: CallLabel.optional(),
});
export type ReadinessProblem = z.infer<typeof ReadinessProblem>;

/**
 * Every reason a run on this model would fail or misbehave for want of a
 * server feature or a model capability. An unknown version or capability list
 * is not a problem: nothing is refused on a guess.
 */
export function readinessProblems(
  version: string | null,
  model: ModelFacts | null,
  callOptions: Readonly<Record<CallLabel, CallOptions>>,
): ReadinessProblem[] {
  const problems: ReadinessProblem[] = [];
  const thinkingRoles = (Object.keys(callOptions) as CallLabel[]).filter((role) => callOptions[role].think);
  if (knownVersion(version) && isOlder(version, MIN_OLLAMA_VERSION.structuredOutputs)) {
    problems.push({
      code: 'ollama_too_old',
      message: `Ollama ${version} is too old: planscope needs at least ${MIN_OLLAMA_VERSION.structuredOutputs} for structured outputs (a JSON schema as format). Update Ollama.`,
    });
  } else if (knownVersion(version) && thinkingRoles.length > 0 && isOlder(version, MIN_OLLAMA_VERSION.think)) {
    problems.push({
      code: 'ollama_too_old',
      message: `Ollama ${version} is too old for thinking (${thinkingRoles.join(', ')} asks for it): that needs at least ${MIN_OLLAMA_VERSION.think}. Update Ollama, or turn thinking off (PLANSCOPE_THINK=false).`,
    });
  }
  const capabilities = model?.capabilities;
  if (!model || !capabilities) return problems;
  if (!capabilities.includes('completion')) {
    problems.push({
      code: 'model_lacks_capability',
      message: `${model.name} cannot chat (its capabilities: ${capabilities.join(', ') || 'none'}); every role needs "completion". Pick a chat model.`,
    });
    return problems;
  }
  if (!capabilities.includes('thinking')) {
    for (const role of thinkingRoles) {
      problems.push({
        code: 'model_lacks_capability',
        role,
        message: `${model.name} cannot think, and the ${role} is set to (PLANSCOPE_${role.toUpperCase()}_THINK or PLANSCOPE_THINK). Turn thinking off for it, or pick a thinking model.`,
      });
    }
  }
  return problems;
}

/** True when `version` is before `minimum`; pre-release and build suffixes are ignored (0.9.0-rc1 counts as 0.9.0). */
export function isOlder(version: string, minimum: string): boolean {
  const a = numericParts(version);
  const b = numericParts(minimum);
  for (let i = 0; i < 3; i++) {
    if (a[i]! !== b[i]!) return a[i]! < b[i]!;
  }
  return false;
}

function numericParts(version: string): number[] {
  const core = version.trim().replace(/^v/, '').split(/[-+]/)[0] ?? '';
  const parts = core.split('.').map((p) => Number.parseInt(p, 10));
  return [0, 1, 2].map((i) => (Number.isFinite(parts[i]) ? parts[i]! : 0));
}
