/**
 * Stdio entry of the workspace bridge:
 *
 *   node dist/bridge.mjs <workspace> [--max-file-bytes N] [--max-list-entries N] [--delay-ms N]
 *        [--deny-add=PATTERN]... [--deny-remove=PATTERN]... [--no-secret-scan]
 *        [--workspace-identity DEV:INO] [--allow-hard-links]
 *
 * With --workspace-identity, <workspace> is the real path the run was posted
 * with and DEV:INO the directory's identity there: the bridge refuses to
 * start (exit 1), and later refuses every call, once another directory
 * stands at that path.
 *
 * stdout carries the MCP protocol and nothing else; diagnostics go to stderr.
 * Exit code 2 for bad usage, as the CLI does.
 */
import { stat } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { WorkspaceIdentity } from '../../lib/events';
import { buildPathPolicy } from '../../lib/policy';
import { createBridgeServer, type BridgeServerOptions } from './bridge-server';
import { workspaceChange } from './workspace-identity';

const DEFAULT_MAX_FILE_BYTES = 256 * 1024;
const DEFAULT_MAX_LIST_ENTRIES = 2000;

// A stray console.log from any module would corrupt the protocol stream;
// route console output to stderr before anything else runs.
console.log = console.error;
console.info = console.error;
console.debug = console.error;

function usage(reason: string): never {
  process.stderr.write(
    `[bridge] ${reason}\nusage: bridge <workspace> [--max-file-bytes N] [--max-list-entries N] [--delay-ms N] [--deny-add=PATTERN]... [--deny-remove=PATTERN]... [--no-secret-scan] [--workspace-identity DEV:INO] [--allow-hard-links]\n`,
  );
  process.exit(2);
}

function nonNegativeInteger(flag: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value)) usage(`--${flag} must be a non-negative integer, got "${value}"`);
  return Number(value);
}

function identity(value: string | undefined): WorkspaceIdentity | undefined {
  if (value === undefined) return undefined;
  const match = /^(\d+):(\d+)$/.exec(value);
  if (!match) usage(`--workspace-identity must be DEV:INO (two whole numbers), got "${value}"`);
  return { dev: match[1]!, ino: match[2]! };
}

function parseOptions(argv: string[]): BridgeServerOptions {
  let parsed: ReturnType<typeof parseFlags>;
  try {
    parsed = parseFlags(argv);
  } catch (error) {
    usage(error instanceof Error ? error.message : String(error));
  }
  const [workspace, ...extra] = parsed.positionals;
  if (workspace === undefined || extra.length > 0) usage('expected exactly one workspace directory');
  // The same defaults-plus-changes the engine built from its configuration, so both judge paths alike.
  const policy = buildPathPolicy({ add: parsed.values['deny-add'], remove: parsed.values['deny-remove'] });
  if (!policy.ok) usage(`--deny-${policy.list}: ${policy.message}`);
  return {
    workspace,
    maxFileBytes: nonNegativeInteger('max-file-bytes', parsed.values['max-file-bytes'], DEFAULT_MAX_FILE_BYTES),
    maxListEntries: nonNegativeInteger('max-list-entries', parsed.values['max-list-entries'], DEFAULT_MAX_LIST_ENTRIES),
    delayMs: nonNegativeInteger('delay-ms', parsed.values['delay-ms'], 0),
    policy: policy.policy,
    secretScan: parsed.values['no-secret-scan'] !== true,
    identity: identity(parsed.values['workspace-identity']),
    allowHardLinks: parsed.values['allow-hard-links'] === true,
  };
}

function parseFlags(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      'max-file-bytes': { type: 'string' },
      'max-list-entries': { type: 'string' },
      'delay-ms': { type: 'string' },
      'deny-add': { type: 'string', multiple: true },
      'deny-remove': { type: 'string', multiple: true },
      'no-secret-scan': { type: 'boolean' },
      'workspace-identity': { type: 'string' },
      'allow-hard-links': { type: 'boolean' },
    },
  });
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const workspace = await stat(options.workspace).catch(() => null);
  if (!workspace?.isDirectory()) usage(`workspace ${options.workspace} is not a directory`);
  const change = options.identity ? workspaceChange(options.workspace, options.identity) : null;
  if (change !== null) {
    process.stderr.write(`[bridge] workspace_changed: the workspace is no longer the directory the run was posted with (${change})\n`);
    process.exit(1);
  }

  const server = createBridgeServer(options);
  const transport = new StdioServerTransport();
  // The client closing our stdin is the normal way to stop: leave quietly.
  process.stdin.once('end', () => {
    server.close().then(
      () => process.exit(0),
      () => process.exit(0),
    );
  });
  await server.connect(transport);
  process.stderr.write(`[bridge] serving ${options.workspace}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`[bridge] fatal: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
