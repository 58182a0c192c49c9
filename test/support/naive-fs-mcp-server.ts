/**
 * A deliberately naive filesystem MCP server, for tests: like many real
 * ones, it trusts its client. It opens whatever it is given, relative to
 * its root or absolute, with no policy of its own, so anything planscope's
 * checks let through reaches the disk.
 *
 *   node --import tsx test/support/naive-fs-mcp-server.ts <root>     (stdio)
 *
 * Its read tools (all annotated read-only) take their file in every shape
 * the tool-argument policy must see: `filePath`, `pathname`, `uri`
 * (`file://…` or a path), `source`, a nested `{target: {path}}`, an array
 * of objects `{files: [{path}]}`, nested arrays `{batches: [[…]]}` and a
 * bare `name`; and behind the prefixes real tools take: a git revision
 * `show_revision {revision: "HEAD:<path>"}`, curl's `post_data {data:
 * "@<path>"}`, a flag `run_with {option: "--config=<path>"}` and a list
 * `read_list {list: "a.md,<path>"}`. `echo {text}` returns its text. `write_note {path, text}`
 * writes a file and is NOT annotated read-only. Parameters carry no
 * descriptions, so only their names and values tell what they are.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

const READ_ONLY = { readOnlyHint: true } as const;

export function createNaiveFsServer(root: string): McpServer {
  const server = new McpServer({ name: 'naive-fs', version: '0.1.0' });
  const open = (name: string) => readFileSync(path.resolve(root, name), 'utf8');
  const read = (names: string[]): CallToolResult => {
    try {
      return { content: [{ type: 'text', text: names.map((name) => `== ${name}\n${open(name)}`).join('\n') }] };
    } catch (error) {
      return { isError: true, content: [{ type: 'text', text: `cannot read: ${error instanceof Error ? error.message : String(error)}` }] };
    }
  };

  server.registerTool('read_file_path', { inputSchema: { filePath: z.string() }, annotations: READ_ONLY }, async ({ filePath }) => read([filePath]));
  server.registerTool('open_pathname', { inputSchema: { pathname: z.string() }, annotations: READ_ONLY }, async ({ pathname }) => read([pathname]));
  server.registerTool('fetch_uri', { inputSchema: { uri: z.string() }, annotations: READ_ONLY }, async ({ uri }) =>
    read([uri.startsWith('file:') ? fileURLToPath(uri) : uri]),
  );
  server.registerTool('cat_source', { inputSchema: { source: z.string() }, annotations: READ_ONLY }, async ({ source }) => read([source]));
  server.registerTool(
    'inspect_target',
    { inputSchema: { target: z.object({ path: z.string() }) }, annotations: READ_ONLY },
    async ({ target }) => read([target.path]),
  );
  server.registerTool(
    'read_files',
    { inputSchema: { files: z.array(z.object({ path: z.string() })).max(20) }, annotations: READ_ONLY },
    async ({ files }) => read(files.map((f) => f.path)),
  );
  server.registerTool(
    'read_batches',
    { inputSchema: { batches: z.array(z.array(z.string()).max(20)).max(20) }, annotations: READ_ONLY },
    async ({ batches }) => read(batches.flat()),
  );
  server.registerTool('lookup', { inputSchema: { name: z.string() }, annotations: READ_ONLY }, async ({ name }) => read([name]));
  server.registerTool('show_revision', { inputSchema: { revision: z.string() }, annotations: READ_ONLY }, async ({ revision }) =>
    read([revision.slice(revision.indexOf(':') + 1)]),
  );
  server.registerTool('post_data', { inputSchema: { data: z.string() }, annotations: READ_ONLY }, async ({ data }) =>
    read([data.startsWith('@') ? data.slice(1) : data]),
  );
  server.registerTool('run_with', { inputSchema: { option: z.string() }, annotations: READ_ONLY }, async ({ option }) =>
    read([option.slice(option.indexOf('=') + 1)]),
  );
  server.registerTool('read_list', { inputSchema: { list: z.string() }, annotations: READ_ONLY }, async ({ list }) => read(list.split(',')));
  server.registerTool('echo', { inputSchema: { text: z.string() }, annotations: READ_ONLY }, async ({ text }) => ({
    content: [{ type: 'text', text }],
  }));
  server.registerTool('write_note', { inputSchema: { path: z.string(), text: z.string() } }, async ({ path: name, text }) => {
    writeFileSync(path.resolve(root, name), text);
    return { content: [{ type: 'text', text: `wrote ${name}` }] };
  });
  return server;
}

async function main(): Promise<void> {
  console.log = console.error;
  const root = process.argv[2];
  if (!root) {
    process.stderr.write('naive-fs: usage: naive-fs-mcp-server.ts <root>\n');
    process.exit(2);
  }
  await createNaiveFsServer(path.resolve(root)).connect(new StdioServerTransport());
}

const isEntry = process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isEntry) {
  main().catch((error: unknown) => {
    process.stderr.write(`naive-fs: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
}
