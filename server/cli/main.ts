import path from 'node:path';
import { parseArgs } from 'node:util';
import { ExitCode } from '../../lib/codes';
import { PlanProfile, Strategy } from '../../lib/events';
import { toResult } from '../../lib/result';
import { RunRequest, type RunRequestField } from '../../lib/run-request';
import { applyEvent, emptyRun } from '../../lib/run-state';
import { appRootOf } from '../app-root';
import { ConfigError, loadConfig } from '../config';
import { RequestError } from '../http/request-error';
import { describeAllowedWorkspaces } from '../runs/workspace';
import { openRuntime } from '../runtime';
import { approveOnTerminal } from './approve';
import { progressLine, summaryTable } from './progress';
import { printable } from './terminal-text';

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

const USAGE = `usage: npm run planscope -- run "<task>" ${FLAG_FIELDS.map((f) => `[--${flagOf(f)} ${FLAG_VALUES[f]}]`).join(' ')} [--approve] [--json]`;

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
        ...Object.fromEntries(FLAG_FIELDS.map((field) => [flagOf(field), { type: 'string' as const }])),
        json: { type: 'boolean', default: false },
        approve: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (error) {
    return fail((error as Error).message);
  }
}

/** The run request the flags spell, checked by the request's own schema before anything starts; a refusal names the flag. */
function requestOf(task: string, values: Record<string, string | boolean | undefined>): RunRequest {
  const request: Partial<Record<RunRequestField, unknown>> = { task };
  for (const field of FLAG_FIELDS) {
    const value = values[flagOf(field)];
    if (typeof value === 'string') request[field] = value;
  }
  // The run API refuses relative workspaces; at the console, one is relative to where the command runs.
  if (typeof request.workspace === 'string') request.workspace = path.resolve(request.workspace);
  const parsed = RunRequest.safeParse(request);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = String(issue?.path[0] ?? 'task');
  return fail(`${field === 'task' ? 'task' : `--${flagOf(field)}`}: ${issue?.message ?? 'invalid'}`);
}

async function main(): Promise<number> {
  const { values, positionals } = parseCli(process.argv.slice(2));
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return ExitCode.completed;
  }
  const [command, task, ...extra] = positionals;
  if (command !== 'run') fail(command ? `unknown command "${command}"` : 'missing command');
  if (!task || task.trim() === '') fail('missing task');
  if (extra.length > 0) fail(`unexpected argument "${extra[0]}" (quote the task)`);
  // Asking on the terminal would break the one JSON document --json prints.
  if (values.approve && values.json) fail('--approve asks on the terminal; it cannot be combined with --json');
  const request = { ...requestOf(task, values), ...(values.approve && { approval: 'plan' as const }) };

  let runtime;
  try {
    runtime = await openRuntime(loadConfig(process.env, appRootOf(import.meta.url)));
  } catch (error) {
    if (error instanceof ConfigError) fail(error.message);
    throw error;
  }
  try {
    let id: string;
    try {
      ({ id } = await runtime.registry.start(request));
    } catch (error) {
      if (error instanceof RequestError) {
        // At the server's own console, naming the allowed directories helps; the API does not echo them.
        const { workspaceRoots: roots, workspace: defaultWorkspace } = runtime.config;
        fail(error.code === 'workspace_not_allowed' ? `${error.message} ${describeAllowedWorkspaces({ roots, defaultWorkspace })}` : error.message);
      }
      throw error;
    }
    if (!values.json) {
      // The same fold the run page keeps: a call's line at its end names where and when it began.
      let live = emptyRun;
      runtime.bus.subscribe(id, (event) => {
        live = applyEvent(live, event);
        const line = progressLine(event, live);
        if (line) process.stdout.write(`${printable(line)}\n`);
      });
    }
    const stopAsking = values.approve ? approveOnTerminal(runtime.registry, runtime.bus, id, { input: process.stdin, output: process.stdout }) : () => {};
    process.once('SIGINT', () => runtime.registry.cancel(id));
    const view = await runtime.registry.waitFor(id);
    stopAsking();
    const result = toResult(id, view);
    if (values.json) {
      process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    } else {
      process.stdout.write(`\n${printable(summaryTable(view))}\n`);
    }
    return result.status === 'completed' ? ExitCode.completed : ExitCode.failed;
  } finally {
    await runtime.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`planscope: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(ExitCode.failed);
  },
);
