import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { z } from 'zod';
import { reportOk, type DoctorCheck, type DoctorCheckId, type DoctorReport } from '../../lib/doctor';
import { maskHost, maskUrlsInText } from '../../lib/mask';
import { knownVersion, MIN_OLLAMA_VERSION, type ReadinessProblem } from '../../lib/ollama-readiness';
import { OFFLINE_MODEL, type Config, type OpenAIServer } from '../config';
import { parseModelRef } from '../../lib/model-ref';
import { readEmbeddedModel, type EmbeddedModelInfo } from '../llm/embedded/catalog';
import { checkOllama } from '../llm/health';
import { createOllamaModel } from '../llm/ollama';
import { listServedModels } from '../llm/openai/models';
import { openaiServerOf, resolveModel, serverNames } from '../llm/resolve';
import { ModelCallError, type Model, type ModelReply } from '../llm/types';
import { connectBridge } from '../mcp/bridge-client';
import { connectToolServers } from '../mcp/tool-servers';
import { resolveWorkspace, workspacePolicy } from '../runs/workspace';
import { connectionConfig } from '../store/pg/database';
import { checkWorkers } from './workers-check';

/**
 * Every check of `planscope doctor`, in order: the model server, the model,
 * a real structured-output call (an embedded model: its file, its header, and
 * the same call made in this process), then the workspace, the bridge, the store
 * and the extra MCP servers. Each is bounded; a check that cannot mean
 * anything after an earlier failure is `skipped`, never guessed.
 */

const TITLES: Record<DoctorCheckId, string> = {
  ollama_reachable: 'Ollama reachable',
  ollama_version: 'Ollama version',
  model_pulled: 'Model pulled',
  model_capabilities: 'Capabilities and context',
  structured_output: 'Structured-output probe',
  model_speed: 'First token and speed',
  workspace_readable: 'Workspace readable',
  bridge_starts: 'Workspace bridge starts',
  data_writable: 'Data store writable',
  workers_available: 'A worker takes runs',
  mcp_servers: 'Extra MCP servers',
};

/**
 * The same checks, as they read for a model on an OpenAI-compatible server:
 * the ids stay (the report's contract), what is checked is that server's.
 */
const OPENAI_TITLES: Partial<Record<DoctorCheckId, string>> = {
  ollama_reachable: 'Server reachable',
  ollama_version: 'Server version',
  model_pulled: 'Model listed',
  model_capabilities: 'Context length',
};

const HEALTH_TIMEOUT_MS = 5000;
/** The probe may load the model first: that alone can take tens of seconds. */
const PROBE_TIMEOUT_MS = 120_000;
/** Below this, a run's several calls of up to num_predict tokens each take minutes. */
const SLOW_TOKENS_PER_SECOND = 5;

/** The probe's reply (sent by the embedded probe too): two fields, so a schema is really applied (a bare "json" format would pass anything). */
const ProbeReply = z.object({ city: z.string(), sum: z.int() });
export const PROBE_SCHEMA = z.toJSONSchema(ProbeReply) as Record<string, unknown>;

export async function runDoctor(config: Config): Promise<DoctorReport> {
  const checks: DoctorCheck[] = [];
  const add = (id: DoctorCheckId, verdict: DoctorCheck['verdict'], detail: string, fix: string | null = null) =>
    checks.push({ id, title: TITLES[id], verdict, detail, fix });

  const served = openaiServerOf(config, config.model);
  if (served) await checkOpenAIModel(config, served, (id, verdict, detail, fix = null) => checks.push({ id, title: OPENAI_TITLES[id] ?? TITLES[id], verdict, detail, fix }));
  else await checkModel(config, add);
  const workspace = checkWorkspace(config, add);
  await checkBridge(config, workspace, add);
  await checkDataStore(config, add);
  const workers = await checkWorkers(config, workspace);
  add('workers_available', workers.verdict, workers.detail, workers.fix);
  await checkToolServers(config, add);
  return { ok: reportOk(checks), host: maskHost(served ? served.server.baseUrl : config.ollamaHost), model: config.model, checks };
}

let inFlight: Promise<DoctorReport> | null = null;

/** The checks, run once for every caller that asks while they run: a page reloaded ten times makes one probe call, not ten. */
export function sharedDoctor(config: Config): Promise<DoctorReport> {
  inFlight ??= runDoctor(config).finally(() => {
    inFlight = null;
  });
  return inFlight;
}

type Add = (id: DoctorCheckId, verdict: DoctorCheck['verdict'], detail: string, fix?: string | null) => void;

const MODEL_CHECKS: DoctorCheckId[] = ['ollama_reachable', 'ollama_version', 'model_pulled', 'model_capabilities', 'structured_output', 'model_speed'];

async function checkModel(config: Config, add: Add): Promise<void> {
  const skipRest = (from: DoctorCheckId, why: string) => {
    for (const id of MODEL_CHECKS.slice(MODEL_CHECKS.indexOf(from))) add(id, 'skipped', why);
  };
  if (config.model === OFFLINE_MODEL) return skipRest('ollama_reachable', 'The configured model is the offline baseline: it needs no Ollama.');
  const ref = parseModelRef(config.model, serverNames(config));
  if (ref.provider === 'embedded') return checkEmbeddedModel(config, ref.model, add);

  const health = await checkOllama(config.ollamaHost, HEALTH_TIMEOUT_MS, { model: config.model, callOptions: config.callOptions });
  if (!health.reachable || health.error) {
    add('ollama_reachable', 'fail', health.error?.message ?? `No answer from ${health.host}.`, health.hint);
    return skipRest('ollama_version', 'Ollama is not reachable.');
  }
  add('ollama_reachable', 'ok', `${health.host} answers; ${health.models.length} ${health.models.length === 1 ? 'model' : 'models'} installed.`);

  const problems = (code: ReadinessProblem['code']) => health.problems.filter((p) => p.code === code).map((p) => p.message);
  const tooOld = problems('ollama_too_old');
  if (tooOld.length > 0) {
    add('ollama_version', 'fail', tooOld.join(' '), 'Update Ollama (https://ollama.com/download), then run doctor again.');
    return skipRest('model_pulled', 'The server is too old.');
  }
  if (health.version === null) {
    add('ollama_version', 'warn', 'The server did not say its version (it predates /api/version).', `Update Ollama: planscope needs ${MIN_OLLAMA_VERSION.structuredOutputs} or later.`);
  } else if (!knownVersion(health.version)) {
    add(
      'ollama_version',
      'warn',
      `Ollama says its version is ${health.version}: a build from source with no release version stamped in, so its features cannot be told from it. The structured-output probe below shows whether it takes a JSON schema as format.`,
      `Build it with its release version (as Ollama's own build scripts do), or run a release: planscope needs ${MIN_OLLAMA_VERSION.structuredOutputs} or later.`,
    );
  } else {
    add('ollama_version', 'ok', `Ollama ${health.version} (planscope needs ${MIN_OLLAMA_VERSION.structuredOutputs}, and ${MIN_OLLAMA_VERSION.think} for thinking).`);
  }

  const facts = health.model;
  if (!facts) {
    add('model_pulled', 'fail', `${config.model} is not installed at ${health.host} (installed: ${health.models.join(', ') || 'none'}).`, `ollama pull ${config.model} (or set PLANSCOPE_MODEL to one of the installed models)`);
    return skipRest('model_capabilities', 'The model is not installed.');
  }
  add('model_pulled', 'ok', `${config.model} is installed.`);

  const lacking = problems('model_lacks_capability');
  const numCtx = Math.max(...Object.values(config.callOptions).map((o) => o.numCtx));
  const described = `capabilities: ${facts.capabilities?.join(', ') ?? 'not reported'}; context length ${facts.contextLength ?? 'not reported'}; num_ctx ${numCtx}.`;
  if (lacking.length > 0) {
    add('model_capabilities', 'fail', `${lacking.join(' ')} (${described})`, 'Turn thinking off for those roles (PLANSCOPE_<ROLE>_THINK=false), or pick a model that has the capability.');
    return skipRest('structured_output', 'The model lacks a capability a role needs.');
  }
  if (facts.contextLength !== null && numCtx > facts.contextLength) {
    add('model_capabilities', 'warn', `${described} Calls ask for ${facts.contextLength} instead, the most the model takes.`, `Set PLANSCOPE_NUM_CTX to ${facts.contextLength} or less.`);
  } else {
    add('model_capabilities', 'ok', described);
  }

  await probeChecks(config, createOllamaModel({ host: config.ollamaHost, model: config.model, keepAlive: config.keepAlive }), add, {
    fix: 'See the message; `ollama run <model>` on the Ollama machine shows whether the model loads and answers at all.',
    schemaFix: `Update Ollama (structured outputs need ${MIN_OLLAMA_VERSION.structuredOutputs} or later), or pick a model that follows a JSON schema.`,
  });
}

/**
 * A model on an OpenAI-compatible server: the server answers `/models`, lists
 * the model (its context length, where it says), and one tiny structured
 * completion comes back parsed. Such a server has no version to check.
 */
async function checkOpenAIModel(config: Config, served: { server: OpenAIServer; model: string }, add: Add): Promise<void> {
  const skipRest = (from: DoctorCheckId, why: string) => {
    for (const id of MODEL_CHECKS.slice(MODEL_CHECKS.indexOf(from))) add(id, 'skipped', why);
  };
  const { server, model } = served;
  const host = maskHost(server.baseUrl);
  const listing = await listServedModels(server, HEALTH_TIMEOUT_MS);
  if (!listing.ok) {
    const fix =
      listing.code === 'model_auth_failed'
        ? `Set the server's API key (${server.keyVariable}).`
        : `Start the server "${server.name}" (LM Studio's server, llama-server, vLLM...), or fix its base URL (it usually ends in /v1).`;
    add('ollama_reachable', 'fail', `${listing.code}: ${listing.message}`, fix);
    return skipRest('ollama_version', 'The server is not reachable.');
  }
  const ids = listing.models.map((m) => m.id);
  add('ollama_reachable', 'ok', `The OpenAI-compatible server "${server.name}" at ${host} answers; ${ids.length} ${ids.length === 1 ? 'model' : 'models'} listed.`);
  add('ollama_version', 'ok', 'An OpenAI-compatible server: no version of it is needed, only the chat completions API.');
  const listed = listing.models.find((m) => m.id === model);
  if (!listed) {
    add('model_pulled', 'fail', `${model} is not among the models ${host}/models lists (${ids.join(', ') || 'none'}).`, `Load or download ${model} on that server, or set PLANSCOPE_MODEL to ${server.name}:<one of the ids listed>.`);
    return skipRest('model_capabilities', 'The model is not listed.');
  }
  add('model_pulled', 'ok', `${model} is listed.`);
  const numCtx = Math.max(...Object.values(config.callOptions).map((o) => o.numCtx));
  if (listed.contextLength === null) {
    add('model_capabilities', 'ok', `The server does not state the model's context length; prompts are sized for PLANSCOPE_NUM_CTX (${numCtx}), which the server's own context must hold.`);
  } else if (numCtx > listed.contextLength) {
    add('model_capabilities', 'warn', `Context length ${listed.contextLength}; PLANSCOPE_NUM_CTX ${numCtx}. Prompts are sized for ${listed.contextLength} instead.`, `Set PLANSCOPE_NUM_CTX to ${listed.contextLength} or less.`);
  } else {
    add('model_capabilities', 'ok', `Context length ${listed.contextLength}; prompts are sized for PLANSCOPE_NUM_CTX (${numCtx}).`);
  }
  await probeChecks(config, resolveModel(config.model, config), add, {
    fix: `See the message; the server's own log shows whether ${model} loads and answers at all.`,
    schemaFix: 'Pick a model, or a server version, that follows a JSON schema given as response_format (json_schema).',
  });
}

/**
 * An embedded model needs no Ollama: its file is found and its header read
 * (size, quantization, context length, chat template), then the probe loads
 * it in this process and makes one tiny completion.
 */
async function checkEmbeddedModel(config: Config, model: string, add: Add): Promise<void> {
  const noOllama = 'The model runs inside planscope (llama.cpp): no Ollama is needed.';
  add('ollama_reachable', 'skipped', noOllama);
  add('ollama_version', 'skipped', noOllama);
  let info: EmbeddedModelInfo;
  try {
    info = await readEmbeddedModel(model, config.embedded.modelsDir);
  } catch (error) {
    add('model_pulled', 'fail', errorText(error), `npm run models:pull -- <GGUF url> (into ${config.embedded.modelsDir}), or set PLANSCOPE_MODEL to embedded:<a file there>`);
    for (const id of MODEL_CHECKS.slice(MODEL_CHECKS.indexOf('model_capabilities'))) add(id, 'skipped', 'The model file is not there.');
    return;
  }
  add('model_pulled', 'ok', `${info.path}: ${(info.sizeBytes / 1e6).toFixed(1)} MB, ${info.quantization ?? 'quantization not stated'}${info.displayName ? ` (${info.displayName})` : ''}.`);
  const numCtx = Math.max(...Object.values(config.callOptions).map((o) => o.numCtx));
  const described = `context length ${info.contextLength ?? 'not stated'}; num_ctx ${numCtx}; chat template ${info.chatTemplate === null ? 'none' : 'in the file'}; ${config.embedded.threads} ${config.embedded.threads === 1 ? 'thread' : 'threads'}.`;
  if (info.chatTemplate === null) {
    add('model_capabilities', 'warn', `${described} A file without a chat template is usually a base model, not tuned to follow instructions: expect plans and answers that do not parse.`, 'Use an instruction-tuned GGUF (its name says Instruct or -it).');
  } else if (info.contextLength !== null && numCtx > info.contextLength) {
    add('model_capabilities', 'warn', `${described} Calls get ${info.contextLength} instead, the most the model takes.`, `Set PLANSCOPE_NUM_CTX to ${info.contextLength} or less.`);
  } else {
    add('model_capabilities', 'ok', described);
  }
  await probeChecks(config, resolveModel(config.model, config), add, {
    fix: 'See the message; a GGUF file that does not load here may be damaged (download it again) or of an architecture this llama.cpp does not know.',
    schemaFix: 'Pick a model that follows a JSON schema: an instruction-tuned one, larger than this.',
  });
}

/** The structured-output probe and the speed it showed. */
async function probeChecks(config: Config, model: Model, add: Add, fixes: { fix: string; schemaFix: string }): Promise<void> {
  const probe = await structuredProbe(config, model, fixes);
  if (!probe.ok) {
    add('structured_output', 'fail', probe.message, probe.fix);
    return add('model_speed', 'skipped', 'The probe call did not succeed.');
  }
  add('structured_output', 'ok', `A two-field schema came back as ${probe.reply.content.trim()}.`);
  add(
    'model_speed',
    probe.tokensPerSecond !== null && probe.tokensPerSecond < SLOW_TOKENS_PER_SECOND ? 'warn' : 'ok',
    [
      `first token after ${probe.firstTokenMs === null ? '-' : `${Math.round(probe.firstTokenMs)} ms`}`,
      `${probe.tokensPerSecond === null ? '-' : probe.tokensPerSecond.toFixed(1)} tokens/s`,
      ...(probe.reply.loadDurationNs ? [`model load ${Math.round(probe.reply.loadDurationNs / 1e6)} ms`] : []),
    ].join('; ') + '.',
    probe.tokensPerSecond !== null && probe.tokensPerSecond < SLOW_TOKENS_PER_SECOND
      ? 'Slow for a run of several calls: use a smaller model or quantization, or a machine with a GPU; raise PLANSCOPE_CALL_TIMEOUT_MS meanwhile.'
      : null,
  );
}

type Probe =
  | { ok: true; reply: ModelReply; firstTokenMs: number | null; tokensPerSecond: number | null }
  | { ok: false; message: string; fix: string };

/** One real call, as a run makes it (streamed, schema as format, thinking off), answering two fields that must parse. */
async function structuredProbe(config: Config, model: Model, fixes: { fix: string; schemaFix: string }): Promise<Probe> {
  const started = performance.now();
  let firstTokenMs: number | null = null;
  let reply: ModelReply;
  try {
    reply = await model.complete({
      label: 'synthesizer',
      input: { kind: 'answer', task: 'probe', schema: PROBE_SCHEMA, observations: [], conclusions: [], correction: null, maxEvidenceChars: 0 },
      prompt: {
        messages: [
          { role: 'system', content: 'Reply only with JSON matching {"city": string, "sum": integer}.' },
          { role: 'user', content: 'city: the capital of France. sum: 2 + 3.' },
        ],
        format: PROBE_SCHEMA,
      },
      options: { temperature: 0, numPredict: 64, numCtx: 2048, think: false },
      signal: new AbortController().signal,
      timeoutMs: Math.min(config.limits.callTimeoutMs, PROBE_TIMEOUT_MS),
      onContent: () => {
        firstTokenMs ??= performance.now() - started;
      },
    });
  } catch (error) {
    const message = error instanceof ModelCallError ? `${error.code}: ${error.message}` : String(error);
    return { ok: false, message, fix: fixes.fix };
  }
  const parsed = ProbeReply.safeParse(parseJson(reply.content));
  if (!parsed.success) {
    return {
      ok: false,
      message: `The reply did not match the two-field schema (done_reason ${reply.doneReason ?? '-'}): ${JSON.stringify(reply.content.slice(0, 200))}.`,
      fix: fixes.schemaFix,
    };
  }
  const tokensPerSecond = reply.evalTokens && reply.evalDurationNs ? reply.evalTokens / (reply.evalDurationNs / 1e9) : null;
  return { ok: true, reply, firstTokenMs, tokensPerSecond };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function checkWorkspace(config: Config, add: Add): string | null {
  try {
    const pinned = resolveWorkspace(config.workspace, workspacePolicy(config));
    const entries = fs.readdirSync(pinned.path);
    add('workspace_readable', 'ok', `${pinned.path} (${entries.length} entries at its top).`);
    return pinned.path;
  } catch (error) {
    add('workspace_readable', 'fail', errorText(error), 'Set PLANSCOPE_WORKSPACE to a directory this user can read.');
    return null;
  }
}

async function checkBridge(config: Config, workspace: string | null, add: Add): Promise<void> {
  if (workspace === null) return add('bridge_starts', 'skipped', 'The workspace is not readable.');
  let bridge;
  try {
    bridge = await connectBridge({
      workspace,
      appRoot: config.appRoot,
      maxFileBytes: config.limits.maxFileBytes,
      maxListEntries: config.maxListEntries,
      pathPolicy: config.pathPolicy,
      secretScan: config.secretScan,
      allowHardLinks: config.bridges.allowHardLinks,
    });
    const files = await bridge.listFiles();
    add('bridge_starts', 'ok', `The MCP bridge started and lists ${files.length} readable ${files.length === 1 ? 'file' : 'files'}.`);
  } catch (error) {
    add('bridge_starts', 'fail', errorText(error), 'Run `npm run build` (it makes dist/bridge.mjs), or install the dev dependencies (tsx) to run it from source.');
  } finally {
    await bridge?.close();
  }
}

async function checkDataStore(config: Config, add: Add): Promise<void> {
  if (config.database) {
    const client = new pg.Client(connectionConfig(config.database));
    try {
      await client.connect();
      await client.query('SELECT 1');
      add('data_writable', 'ok', `PostgreSQL at ${config.database.display} answers.`);
    } catch (error) {
      add('data_writable', 'fail', `PostgreSQL at ${config.database.display}: ${errorText(error)}`, 'Start PostgreSQL or fix PLANSCOPE_DATABASE_URL; unset it to use the SQLite file in PLANSCOPE_DATA_DIR.');
    } finally {
      await client.end().catch(() => undefined);
    }
    return;
  }
  const probe = path.join(config.dataDir, `.doctor-${process.pid}-${Date.now()}`);
  try {
    fs.mkdirSync(config.dataDir, { recursive: true });
    fs.writeFileSync(probe, 'planscope doctor');
    fs.rmSync(probe);
    add('data_writable', 'ok', `${config.dataDir} is writable (the SQLite store).`);
  } catch (error) {
    add('data_writable', 'fail', errorText(error), `Set PLANSCOPE_DATA_DIR to a directory this user can write, or make ${config.dataDir} writable.`);
  }
}

async function checkToolServers(config: Config, add: Add): Promise<void> {
  const { servers, connectTimeoutMs, callTimeoutMs, maxResultChars, configFile } = config.toolServers;
  if (Object.keys(servers).length === 0) return add('mcp_servers', 'ok', `None configured (${configFile}).`);
  const connected = await connectToolServers({ servers }, { connectTimeoutMs, callTimeoutMs, maxResultChars, secretScan: config.secretScan });
  try {
    const statuses = connected.statuses();
    const failed = statuses.filter((s) => s.status === 'failed');
    const listed = statuses.map((s) => `${s.name} (${s.status === 'connected' ? `${s.tools.length} tools` : 'failed'})`).join(', ');
    if (failed.length === 0) return add('mcp_servers', 'ok', listed);
    add(
      'mcp_servers',
      'fail',
      `${listed}. ${failed.map((s) => `${s.name}: ${s.error ?? 'failed'}`).join(' ')}`,
      `Fix or remove the failing servers in ${configFile}.`,
    );
  } finally {
    await connected.close();
  }
}

function errorText(error: unknown): string {
  return maskUrlsInText(error instanceof Error ? error.message : String(error));
}
