import { randomUUID } from 'node:crypto';
import { DEFAULT_PLAN_LIMITS } from '../../lib/plan';
import type { CallOptions } from '../../lib/events';
import { ReplayOptions, ReplayRequest, type ReplayBatch, type ReplayedCall, type ReplayList, type ReplayRecord, type ReplayReply, type ReplaySettings } from '../../lib/replay';
import type { Config } from '../config';
import type { CallSlots } from '../llm/host-slots';
import { withinContextLength } from '../engine/context-budget';
import { sendToModel } from '../engine/llm-call';
import { PLAN_PROFILES } from '../engine/profiles';
import { planRules } from '../engine/profiles/profile';
import { parseOrRefuse, RequestError } from '../errors';
import { cachedOllamaFacts } from '../llm/model-facts';
import { resolveModel } from '../llm/resolve';
import { ModelCallError, type Model } from '../llm/types';
import type { RunTools } from '../runs/registry';
import { prepareArtifact, type PendingArtifact } from '../store/artifact';
import type { ReplayStore } from '../store/replay-store';
import type { RunStore } from '../store/run-store';
import { judgeReply, type JudgeRules } from './judge';
import { loadRecordedCall, type RecordedCall } from './recorded-call';

/** Longest a replay waits on `/api/show` for the model's context length (usually answered from the cache). */
const FACTS_TIMEOUT_MS = 3000;

export interface ReplayerDeps {
  config: Pick<Config, 'ollamaHost' | 'keepAlive' | 'loadTimeoutMs' | 'hostConcurrency' | 'openaiServers' | 'embedded' | 'pathPolicy' | 'callOptions' | 'limits' | 'maxReplayRepeats'>;
  runs: RunStore;
  replays: ReplayStore;
  /** The tools plans may name, for judging a general plan as its run was. */
  tools: () => Promise<RunTools>;
  /** Where replays take their host's call slots, as the runs do; unset: this process's. */
  slots?: CallSlots;
}

/**
 * Replays recorded LLM calls: the call's request, with the person's edits,
 * sent through the same model adapter a run uses, the reply judged as the
 * engine judges that role, and each replay stored as its own record. The
 * run replayed is only read.
 */
export class Replayer {
  constructor(private readonly deps: ReplayerDeps) {}

  /** The call as recorded, and its replays, oldest first. */
  async list(runId: string, call: string): Promise<ReplayList> {
    const recorded = await this.load(runId, call);
    return { original: await this.original(recorded), replays: await this.deps.replays.list(runId, call) };
  }

  /**
   * Sends the call again, `repeat` times one after another, and stores
   * each replay, a failed call included. Invalid input is refused with its
   * code before anything is sent or stored.
   */
  async replay(runId: string, call: string, body: unknown, signal: AbortSignal): Promise<ReplayBatch> {
    const request = parseRequest(body, this.deps.config.maxReplayRepeats);
    const recorded = await this.load(runId, call);
    const modelName = request.model ?? recorded.settings.model;
    const model = resolveModel(modelName, this.deps.config, undefined, this.deps.slots);
    const settings: ReplaySettings = {
      model: modelName,
      messages: request.messages ?? recorded.settings.messages,
      options: await this.options(model, { ...recorded.settings.options, ...request.options }, call),
      format: request.format ?? recorded.settings.format,
    };
    if (model.baseline && recorded.input === null) {
      throw new RequestError(
        'call_not_replayable',
        `The offline baseline answers from a call's recorded input, which only a baseline run's calls keep; replay ${call} with a model on Ollama or an OpenAI-compatible server.`,
      );
    }
    const rules = await this.judgeRules(recorded);
    const batch = randomUUID();
    const replays: ReplayRecord[] = [];
    for (let attempt = 1; attempt <= request.repeat && !signal.aborted; attempt++) {
      const sent = await this.send(model, recorded, settings, signal);
      const { reply } = sent;
      const artifacts = replayArtifacts(settings, settings.format ? recorded.format : null, reply);
      const record: ReplayRecord = {
        id: randomUUID(),
        runId,
        call,
        label: recorded.view.label,
        createdAt: Date.now(),
        batch,
        attempt,
        baseline: model.baseline,
        request: settings,
        reply,
        judgement: sent.error ? null : await judgeReply(recorded.view.label, reply, rules),
        status: sent.error ? 'failed' : 'ok',
        error: sent.error ? { code: sent.error.code, message: sent.error.message } : null,
        artifacts: artifacts.map((a) => ({ name: a.name, mediaType: a.mediaType, bytes: a.buffer.length, sha256: a.sha256 })),
      };
      await this.deps.replays.add(record, artifacts);
      replays.push(record);
    }
    return { batch, replays, validated: replays.filter((r) => r.judgement?.validated === true).length, total: replays.length };
  }

  /**
   * The options a replay sends: those asked for over those recorded, held to the bounds a request's own options
   * have (a recorded option out of them is refused, naming it, unless the request gives its own), and `num_ctx`
   * no larger than the model's context length, as a run's calls are.
   */
  private async options(model: Model, merged: CallOptions, call: string): Promise<CallOptions> {
    const checked = ReplayOptions.safeParse(merged);
    if (!checked.success) {
      const issue = checked.error.issues[0];
      const field = issue?.path.join('.') ?? 'options';
      throw new RequestError(
        'call_not_replayable',
        `The call ${call} recorded options.${field} ${JSON.stringify((merged as Record<string, unknown>)[field])}, which a replay may not send (${issue?.message ?? 'out of range'}); give options.${field} in the request.`,
      );
    }
    if (model.baseline || model.host === null) return checked.data;
    let contextLength: number | null = null;
    try {
      contextLength = (await cachedOllamaFacts(this.deps.config.ollamaHost, model.name, FACTS_TIMEOUT_MS)).model?.contextLength ?? null;
    } catch {
      // An Ollama that cannot say is left to the call itself, which fails with its own code.
    }
    return withinContextLength(checked.data, contextLength);
  }

  private load(runId: string, call: string): Promise<RecordedCall> {
    return loadRecordedCall(this.deps.runs, runId, call, this.deps.config.callOptions);
  }

  /**
   * One replay's call through the model adapter runs use, bounded by the
   * per-call timeout, in one of its host's call slots as a run's call is (a
   * replay repeated ten times must not crowd the runs off the GPU); a failure
   * keeps what had streamed.
   */
  private async send(model: Model, recorded: RecordedCall, settings: ReplaySettings, signal: AbortSignal): Promise<{ reply: ReplayReply; error: ModelCallError | null }> {
    const started = performance.now();
    let release: (() => void) | undefined;
    try {
      release = await model.takeSlot?.({ owner: recorded, signal }).catch((thrown: unknown) => {
        if (thrown instanceof ModelCallError) throw thrown;
        throw new ModelCallError('cancelled', 'The replay was cancelled while waiting for a call slot at Ollama.');
      });
      const reply = await sendToModel(model, {
        label: recorded.view.label,
        input: recorded.input,
        prompt: { messages: settings.messages, format: settings.format ? recorded.format : null },
        options: settings.options,
        signal,
        timeoutMs: this.deps.config.limits.callTimeoutMs,
      });
      const { content, thinking, doneReason, promptTokens, evalTokens, loadDurationNs, cachedPromptTokens } = reply;
      return {
        reply: {
          content,
          thinking,
          doneReason,
          promptTokens,
          evalTokens,
          loadDurationNs,
          durationMs: performance.now() - started,
          ...(typeof cachedPromptTokens === 'number' && { cachedPromptTokens }),
        },
        error: null,
      };
    } catch (thrown) {
      const error = thrown as ModelCallError;
      const partial = { doneReason: null, promptTokens: null, evalTokens: null, loadDurationNs: null, durationMs: performance.now() - started };
      return { reply: { ...error.partial, ...partial }, error };
    } finally {
      release?.();
    }
  }

  private async original(recorded: RecordedCall): Promise<ReplayedCall> {
    const { runId, view, settings, reply } = recorded;
    return {
      runId,
      call: view.call,
      label: view.label,
      request: settings,
      reply,
      judgement: reply === null ? null : await judgeReply(view.label, reply, await this.judgeRules(recorded)),
    };
  }

  /** The rules the run's replies are judged by: its profile and step cap, the configured deny-list, the tools on offer, its observations. */
  private async judgeRules(recorded: RecordedCall): Promise<JudgeRules> {
    const { run } = recorded;
    let observed: Promise<ReadonlyMap<string, string>> | undefined;
    const tools = run.profile === 'general' ? await this.deps.tools() : null;
    const maxSteps = run.limits?.maxSteps ?? DEFAULT_PLAN_LIMITS.maxSteps;
    return {
      profile: PLAN_PROFILES[run.profile],
      rules: planRules({
        planLimits: { ...DEFAULT_PLAN_LIMITS, maxSteps },
        pathPolicy: this.deps.config.pathPolicy,
        workspaceTools: tools?.workspace ?? [],
        externalTools: tools?.external ?? { specs: [], notOffered: new Map() },
      }),
      // Read once, when a synthesizer's reply is first judged.
      observed: () => (observed ??= this.observed(recorded)),
    };
  }

  private async observed({ run, runId }: RecordedCall): Promise<ReadonlyMap<string, string>> {
    const observed = new Map<string, string>();
    for (const observation of Object.values(run.observations)) {
      const artifact = await this.deps.runs.getArtifact(runId, observation.artifact);
      if (artifact) observed.set(observation.path, artifact.content);
    }
    return observed;
  }
}

function parseRequest(body: unknown, maxRepeats: number) {
  const request = parseOrRefuse(ReplayRequest, body, 'request');
  if (request.repeat > maxRepeats) {
    throw new RequestError('invalid_request', `repeat: at most ${maxRepeats} replays per request (PLANSCOPE_MAX_REPLAY_REPEATS).`);
  }
  return request;
}

/** A replay's raw material, hashed like a run's: the request as sent, the reply, and its thinking when there was any. */
function replayArtifacts(settings: ReplaySettings, format: unknown, reply: ReplayReply): PendingArtifact[] {
  return [
    prepareArtifact('request.json', JSON.stringify({ model: settings.model, messages: settings.messages, format, options: settings.options }, null, 2), 'application/json'),
    prepareArtifact('response.txt', reply.content),
    ...(reply.thinking ? [prepareArtifact('thinking.txt', reply.thinking)] : []),
  ];
}
