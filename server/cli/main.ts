import path from 'node:path';
import { parseArgs } from 'node:util';
import { ExitCode } from '../../lib/codes';
import { PlanProfile, Strategy } from '../../lib/events';
import { toResult } from '../../lib/result';
import { appRootOf } from '../app-root';
import { ConfigError, loadConfig } from '../config';
import { RequestError } from '../runs/request-error';
import { describeAllowedWorkspaces } from '../runs/workspace';
import { createRuntime } from '../runtime';
import { progressLine, summaryTable } from './progress';
import { printable } from './terminal-text';

const USAGE =
  'usage: npm run planscope -- run "<task>" [--workspace DIR] [--model NAME] [--strategy plan-execute|react] [--profile file|general] [--max-rounds N] [--json]';

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
        workspace: { type: 'string' },
        model: { type: 'string' },
        strategy: { type: 'string' },
        profile: { type: 'string' },
        'max-rounds': { type: 'string' },
        json: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (error) {
    return fail((error as Error).message);
  }
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
  const maxRounds = values['max-rounds'];
  if (maxRounds !== undefined && !/^\d+$/.test(maxRounds)) fail('--max-rounds takes a whole number');
  const strategy = values.strategy;
  if (strategy !== undefined && !Strategy.options.includes(strategy as Strategy)) {
    fail(`--strategy takes ${Strategy.options.join(' or ')}`);
  }
  const profile = values.profile;
  if (profile !== undefined && !PlanProfile.options.includes(profile as PlanProfile)) {
    fail(`--profile takes ${PlanProfile.options.join(' or ')}`);
  }

  let runtime;
  try {
    runtime = createRuntime(loadConfig(process.env, appRootOf(import.meta.url)));
  } catch (error) {
    if (error instanceof ConfigError) fail(error.message);
    throw error;
  }
  try {
    let id: string;
    try {
      // The run API refuses relative workspaces; at the console, one is relative to where the command runs.
      const workspace = values.workspace === undefined ? undefined : path.resolve(values.workspace);
      ({ id } = await runtime.registry.start({ task, model: values.model, workspace, maxRounds, strategy, profile }));
    } catch (error) {
      if (error instanceof RequestError) {
        // At the server's own console, naming the allowed directories helps; the API does not echo them.
        const { workspaceRoots: roots, workspace: defaultWorkspace } = runtime.config;
        fail(error.code === 'workspace_not_allowed' ? `${error.message} ${describeAllowedWorkspaces({ roots, defaultWorkspace })}` : error.message);
      }
      throw error;
    }
    if (!values.json) {
      runtime.bus.subscribe(id, (event) => {
        const line = progressLine(event);
        if (line) process.stdout.write(`${printable(line)}\n`);
      });
    }
    process.once('SIGINT', () => runtime.registry.cancel(id));
    const view = await runtime.registry.waitFor(id);
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
