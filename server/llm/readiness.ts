import { readinessProblems } from '../../lib/ollama-readiness';
import type { Config, OpenAIServer } from '../config';
import { RequestError } from '../errors';
import { maskHost } from '../../lib/mask';
import { parseModelRef } from '../../lib/model-ref';
import { embeddedContextLength } from './embedded/model';
import { cachedOllamaFacts, readOllamaFacts } from './model-facts';
import { cachedServedModels } from './openai/models';
import { openaiServerOf, serverNames } from './resolve';
import type { Model } from './types';

/** Longest a run's start waits on `/api/version` and `/api/show` (usually answered from the cache). */
const READINESS_TIMEOUT_MS = 3000;

/**
 * Refuses a run, before it exists, on a server (`host`, the default one unless given) too old for what it needs or
 * a model without a capability one of its roles needs; otherwise gives the
 * model with its context length, when the server said it. A server that
 * cannot be asked, or a model it does not have, is left to the run itself:
 * it fails with `model_unreachable` or `model_not_found`, visibly, as before.
 * An embedded model's context length is its GGUF file's.
 */
export async function readyModel(config: Pick<Config, 'ollamaHost' | 'callOptions' | 'openaiServers' | 'embedded'>, model: Model, host: string = config.ollamaHost): Promise<Model> {
  if (model.baseline) return model;
  const served = openaiServerOf(config, model.name);
  if (served) return readyOpenAIModel(served.server, served.model, model);
  const ref = parseModelRef(model.name, serverNames(config));
  // An embedded model has no server to ask: its file's header says its context length.
  if (ref.provider === 'embedded') return { ...model, contextLength: await embeddedContextLength({ model: ref.model, modelsDir: config.embedded.modelsDir }) };
  let facts;
  try {
    facts = await cachedOllamaFacts(host, model.name, READINESS_TIMEOUT_MS);
  } catch {
    return model;
  }
  const problems = readinessProblems(facts.version, facts.model, config.callOptions);
  const first = problems[0];
  if (first) throw new RequestError(first.code, problems.map((p) => p.message).join(' '));
  return { ...model, contextLength: facts.model?.contextLength ?? null };
}

/**
 * An OpenAI-compatible server has no `/api/show`: what it says of a model is
 * its entry in `/models`, the context length among it where it states one.
 * Nothing there refuses a run (a server that loads models on demand, as LM
 * Studio does, may not list one it would load): the run's own call says.
 */
async function readyOpenAIModel(server: OpenAIServer, id: string, model: Model): Promise<Model> {
  const listing = await cachedServedModels(server, READINESS_TIMEOUT_MS);
  const listed = listing.ok ? listing.models.find((m) => m.id === id) : undefined;
  return { ...model, contextLength: listed?.contextLength ?? null };
}

/**
 * At server start: reads the configured model's facts (so the first run's
 * check is answered from the cache) and says on stderr what would refuse a
 * run on it. Never throws; an Ollama that is not up yet is no news here.
 */
export async function reportReadinessAtStart(config: Pick<Config, 'ollamaHost' | 'model' | 'callOptions' | 'openaiServers'>): Promise<void> {
  // An OpenAI-compatible server's model has nothing at start that would refuse a run, and an embedded model has no server to be too old.
  if (parseModelRef(config.model, serverNames(config)).provider !== 'ollama') return;
  try {
    const facts = await readOllamaFacts(config.ollamaHost, config.model, READINESS_TIMEOUT_MS);
    for (const problem of readinessProblems(facts.version, facts.model, config.callOptions)) {
      process.stderr.write(`planscope: ${problem.code}: ${problem.message} (Ollama at ${maskHost(config.ollamaHost)})\n`);
    }
  } catch {
    // Reported where it matters: the start page's health line, `planscope doctor`, and a run's own failure.
  }
}
