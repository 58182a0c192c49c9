import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ExitCode } from '../../lib/codes';
import { formatEvalTable, summarize } from '../../lib/eval';
import { Strategy } from '../../lib/events';
import { commandConfig, commandRuntime } from './command-config';
import { evalModels, runSuite, STORED_SUITE_PREFIX, SuiteError } from '../eval/run-suite';
import { isRequestError } from '../errors';
import { printable, printableJson } from './terminal-text';

const USAGE =
  'usage: npm run eval -- --suite FILE|NAME [--model NAME] [--strategy plan-execute|react|both] [--repeat N] [--tasks ID,ID...] [--no-baseline] [--json]\n' +
  '  (NAME: a suite saved from the dashboard, when no file of that name exists)';

function fail(reason: string): never {
  process.stderr.write(`planscope eval: ${printable(reason)}\n${USAGE}\n`);
  process.exit(ExitCode.usage);
}

function parseCli() {
  try {
    return parseArgs({
      args: process.argv.slice(2),
      options: {
        suite: { type: 'string' },
        model: { type: 'string' },
        strategy: { type: 'string', default: 'plan-execute' },
        repeat: { type: 'string', default: '1' },
        tasks: { type: 'string' },
        'no-baseline': { type: 'boolean', default: false },
        json: { type: 'boolean', default: false },
      },
    }).values;
  } catch (error) {
    return fail((error as Error).message);
  }
}

/** A suite file when one exists there; otherwise the stored suite of that name. */
function suitePathOf(suite: string): string {
  const file = path.resolve(suite);
  return fs.existsSync(file) ? file : `${STORED_SUITE_PREFIX}${suite}`;
}

async function main(): Promise<number> {
  const args = parseCli();
  if (!args.suite) fail('--suite is required');
  const strategies: Strategy[] =
    args.strategy === 'both' ? [...Strategy.options] : Strategy.options.includes(args.strategy as Strategy) ? [args.strategy as Strategy] : fail(`unknown strategy "${args.strategy}"`);
  if (!/^[1-9]\d*$/.test(args.repeat)) fail('--repeat takes a whole number of at least 1');

  const config = commandConfig(fail);
  const model = args.model ?? config.model;
  const models = evalModels(model, !args['no-baseline']);
  const runtime = await commandRuntime(config, fail);
  try {
    const { id, items } = await runSuite(runtime, {
      suitePath: suitePathOf(args.suite),
      models,
      strategies,
      repeat: Number(args.repeat),
      by: config.person,
      ...(args.tasks !== undefined && { tasks: args.tasks.split(',').map((t) => t.trim()).filter((t) => t !== '') }),
      onItem: args.json
        ? undefined
        : (item) =>
            process.stderr.write(
              `${printable(
                `${item.success ? '✓' : '✗'} ${item.model} ${item.strategy} ${item.taskId} (${item.status}${item.errorCode ? `: ${item.errorCode}` : ''})${
                  item.planAsFact ? ` · ${item.planAsFact} claim${item.planAsFact === 1 ? '' : 's'} plan_as_fact` : ''
                }`,
              )}\n`,
            ),
    });
    const rows = summarize(items);
    if (args.json) {
      process.stdout.write(`${printableJson({ id, rows, items }, 2)}\n`);
    } else {
      // Task ids and categories are the suite's, which may be a stored one anybody could save.
      process.stdout.write(`\n${printable(formatEvalTable(rows))}\n\nstored as evaluation ${id} (dashboard: /evals/${id})\n`);
    }
    return ExitCode.completed;
  } catch (error) {
    // A bad suite, or a workspace the configuration refuses: the person's to fix, not a crash.
    if (error instanceof SuiteError || isRequestError(error)) fail(error.message);
    throw error;
  } finally {
    await runtime.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`planscope eval: ${printable(error instanceof Error ? (error.stack ?? error.message) : String(error))}\n`);
    process.exit(ExitCode.failed);
  },
);
