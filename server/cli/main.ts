import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { runStartAction } from '../../lib/audit';
import { ExitCode } from '../../lib/codes';
import { ForkStage, PlanProfile, Strategy, type RunEvent } from '../../lib/events';
import { toResult } from '../../lib/result';
import { RunRequest, type RunRequestField } from '../../lib/run-request';
import { applyEvent, emptyRun } from '../../lib/run-state';
import { ConfigError } from '../config';
import { commandConfig, commandRuntime } from './command-config';
import { RequestError } from '../errors';
import { describeAllowedWorkspaces } from '../runs/workspace';
import { BundleFileError, bundleCommand } from './bundle-commands';
import { TOKEN_USAGE, tokenCommand } from './token-commands';
import type { Runtime } from '../runtime';
import { doctorCommand } from './doctor';
import { approveOnTerminal } from './approve';
import { progressLine, summaryTable } from './progress';
import { printable, printableJson } from './terminal-text';

/**
 * Every field of the request but the task (the positional argument) and the
 * approval (`--approve`, a switch) is a flag with a value; the order and
 * value names are the usage line's.
 */
const FLAG_VALUES = {
  workspace: 'DIR',
  model: 'NAME',
  strategy: Strategy.options.join('|'),
  profile: PlanProfile.options.join('|'),
  maxRounds: 'N',
} satisfies Record<Exclude<RunRequestField, 'task' | 'fork' | 'approval'>, string>;
type FlagField = keyof typeof FLAG_VALUES;
const FLAG_FIELDS = Object.keys(FLAG_VALUES) as FlagField[];

/** `maxRounds` is spelled `--max-rounds`. */
function flagOf(field: string): string {
  return field.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
}

/** A fork takes its parent's workspace; the rest of the flags it takes as `run` does. */
const FORK_FLAG_FIELDS = FLAG_FIELDS.filter((f) => f !== 'workspace');
/** What only `fork` takes: where in the parent it starts, and the plan it starts with. */
const FORK_ONLY = { round: 'N', plan: 'plan.json', stage: ForkStage.options.join('|') } as const;
const flagsUsage = (fields: readonly FlagField[]) => fields.map((f) => `[--${flagOf(f)} ${FLAG_VALUES[f]}]`).join(' ');

const USAGE = [
  `usage: npm run planscope -- run "<task>" ${flagsUsage(FLAG_FIELDS)} [--approve] [--json]`,
  `       npm run planscope -- fork <run> --round N [--plan plan.json] [--stage ${FORK_ONLY.stage}] ${flagsUsage(FORK_FLAG_FIELDS)} [--approve] [--json]`,
  '       npm run planscope -- export <run id> > run.bundle.json',
  '       npm run planscope -- import <file>',
  '       npm run planscope -- doctor [--json]',
  ...TOKEN_USAGE,
].join('\n');

function fail(reason: string): never {
  process.stderr.write(`planscope: ${printable(reason)}\n${USAGE}\n`);
  process.exit(ExitCode.usage);
}

function parseCli(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        ...Object.fromEntries([...FLAG_FIELDS, ...Object.keys(FORK_ONLY)].map((field) => [flagOf(field), { type: 'string' as const }])),
        json: { type: 'boolean', default: false },
        approve: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (error) {
    return fail((error as Error).message);
  }
}

type CliValues = Record<string, string | boolean | undefined>;

/** The run request the flags spell, checked by the request's own schema before anything starts; a refusal names the flag. */
function requestOf(task: string, values: CliValues): RunRequest {
  const forkOnly = Object.keys(FORK_ONLY).find((f) => values[f] !== undefined);
  if (forkOnly) fail(`--${forkOnly}: only a fork takes it`);
  const request: Partial<Record<RunRequestField, unknown>> = { task, ...flagsOf(FLAG_FIELDS, values) };
  // The run API refuses relative workspaces; at the console, one is relative to where the command runs.
  if (typeof request.workspace === 'string') request.workspace = path.resolve(request.workspace);
  return checked(request);
}

/** A fork's request: the parent, the round and stage, and the plan read from its file (relative to where the command runs). */
function forkRequestOf(run: string, values: CliValues): RunRequest {
  if (values['workspace'] !== undefined) fail("--workspace: a fork runs in its parent's workspace");
  const fork: Record<string, unknown> = { run };
  if (typeof values['round'] === 'string') fork['round'] = values['round'];
  if (typeof values['stage'] === 'string') fork['stage'] = values['stage'];
  if (typeof values['plan'] === 'string') fork['plan'] = readPlanFile(values['plan']);
  return checked({ ...flagsOf(FORK_FLAG_FIELDS, values), fork });
}

function flagsOf(fields: readonly FlagField[], values: CliValues): Partial<Record<FlagField, string>> {
  return Object.fromEntries(fields.flatMap((field) => (typeof values[flagOf(field)] === 'string' ? [[field, values[flagOf(field)]]] : [])));
}

function checked(request: Partial<Record<RunRequestField, unknown>>): RunRequest {
  const parsed = RunRequest.safeParse(request);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const [field, inner] = (issue?.path ?? ['task']).map(String);
  const flag = field === 'task' ? 'task' : field === 'fork' ? (inner === 'run' ? 'run' : `--${inner ?? 'round'}`) : `--${flagOf(field ?? '')}`;
  return fail(`${flag}: ${issue?.message ?? 'invalid'}`);
}

function readPlanFile(file: string): unknown {
  let text: string;
  try {
    text = fs.readFileSync(path.resolve(file), 'utf8');
  } catch (error) {
    return fail(`--plan: cannot read ${file}: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    return fail(`--plan: ${file} is not JSON: ${(error as Error).message}`);
  }
}

/** The request the command line spells: `run "<task>"` or `fork <run>`. */
function commandRequest(positionals: string[], values: CliValues): RunRequest {
  const [command, subject, ...extra] = positionals;
  if (command !== 'run' && command !== 'fork') fail(command ? `unknown command "${command}"` : 'missing command');
  if (!subject || subject.trim() === '') fail(command === 'run' ? 'missing task' : 'missing run id');
  if (extra.length > 0) fail(`unexpected argument "${extra[0]}"${command === 'run' ? ' (quote the task)' : ''}`);
  return command === 'run' ? requestOf(subject, values) : forkRequestOf(subject, values);
}

async function main(): Promise<number> {
  // `token` takes flags of its own (--name, --role), which no other command does.
  if (process.argv[2] === 'token') return tokenCommand(process.argv.slice(3), commandConfig(fail), fail);
  const { values, positionals } = parseCli(process.argv.slice(2));
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return ExitCode.completed;
  }
  const [command, subject, ...extra] = positionals;
  if (command === 'export' || command === 'import') return bundleMain(command, subject, extra);
  if (command === 'doctor') return doctor(positionals.slice(1), values);
  // Asking on the terminal would break the one JSON document --json prints.
  if (values.approve && values.json) fail('--approve asks on the terminal; it cannot be combined with --json');
  const request = { ...commandRequest(positionals, values), ...(values.approve && { approval: 'plan' as const }) };

  const runtime = await commandRuntime(commandConfig(fail), fail);
  try {
    let id: string;
    try {
      ({ id } = await runtime.registry.start(request, { by: runtime.config.person }));
      await runtime.audit.record({ person: runtime.config.person, action: runStartAction(request), runId: id, subject: null, detail: null, imported: false });
    } catch (error) {
      if (error instanceof RequestError) {
        // At the server's own console, naming the allowed directories helps; the API does not echo them.
        if (error.code === 'workspace_not_allowed') fail(`${error.message} ${describeAllowedWorkspaces(runtime.registry.workspacePolicy)}`);
        // A refused plan is told step by step, each rejection with its code, as a run shows it.
        const rejections = (error.rejections ?? []).map((r) => `\n  ${r.step === null ? 'plan' : `step ${r.step + 1}`}: ${r.code}: ${r.message}`);
        fail(`${error.message}${rejections.join('')}`);
      }
      throw error;
    }
    if (!values.json) await followRun(runtime, id);
    const stopAsking = values.approve ? approveOnTerminal(runtime.registry, runtime.feed, id, { input: process.stdin, output: process.stdout }) : () => {};
    // Wherever it runs: here, or (with the run queue) on a worker, which is asked to cancel it.
    process.once('SIGINT', () => void runtime.registry.cancelElsewhere(id));
    const view = await runtime.registry.waitFor(id);
    stopAsking();
    const result = toResult(id, view);
    if (values.json) {
      process.stdout.write(`${printableJson(result, 2)}\n`);
    } else {
      process.stdout.write(`\n${printable(summaryTable(view))}\n`);
    }
    return result.status === 'completed' ? ExitCode.completed : ExitCode.failed;
  } finally {
    await runtime.close();
  }
}

async function bundleMain(command: 'export' | 'import', argument: string | undefined, extra: string[]): Promise<number> {
  if (!argument) fail(command === 'export' ? 'missing run id' : 'missing bundle file');
  if (extra.length > 0) fail(`unexpected argument "${extra[0]}"`);
  try {
    return await bundleCommand(command, argument, commandConfig(fail));
  } catch (error) {
    if (error instanceof ConfigError || error instanceof BundleFileError) fail(error.message);
    throw error;
  }
}

/**
 * Prints the run's progress: what it recorded before the id was known (its
 * creation; a fork's origin and carried work), then each event as it comes,
 * every one once, in order. The same fold the run page keeps: a call's line
 * at its end names where and when it began.
 */
async function followRun(runtime: Runtime, id: string): Promise<void> {
  let live = emptyRun;
  const show = (event: RunEvent) => {
    if (event.seq <= live.lastSeq) return;
    live = applyEvent(live, event);
    const line = progressLine(event, live);
    if (line) process.stdout.write(`${printable(line)}\n`);
  };
  const early: RunEvent[] = [];
  let caughtUp = false;
  // The feed: the run's events whether this process records them or (with the run queue) a worker does.
  runtime.feed.subscribe(id, (event) => (caughtUp ? show(event) : early.push(event)));
  for (const event of await runtime.store.events(id)) show(event);
  caughtUp = true;
  for (const event of early) show(event);
}

/** `doctor` takes no task and no run flags: only --json. */
async function doctor(extra: string[], values: Record<string, string | boolean | undefined>): Promise<number> {
  if (extra.length > 0) fail(`unexpected argument "${extra[0]}"`);
  const flag = FLAG_FIELDS.find((field) => values[flagOf(field)] !== undefined);
  if (flag) fail(`--${flagOf(flag)} is for run, not doctor`);
  const config = commandConfig(fail);
  return doctorCommand(config, values.json === true);
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`planscope: ${printable(error instanceof Error ? (error.stack ?? error.message) : String(error))}\n`);
    process.exit(ExitCode.failed);
  },
);
