/**
 * A small, real MCP server for tests and the example config: a glossary of
 * terms around the sample workspace and planscope itself.
 *
 *   node --import tsx test/support/glossary-mcp-server.ts     (stdio)
 *
 * Tools: `define {term}` (unknown term: an isError result "unknown term …")
 * and `count_words {text}`. GLOSSARY_LANG selects the language; only "en"
 * exists, anything else makes it exit at once with the reason on stderr.
 * GLOSSARY_DELAY_MS delays every reply (for timeout tests).
 * GLOSSARY_ECHO_TRACE=1 ends each definition with the W3C traceparent the
 * request carried in `_meta` (a tool server that traces would continue it).
 * stdout carries the protocol and nothing else.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

export const GLOSSARY: Readonly<Record<string, string>> = {
  plan: 'A list of steps the Planner proposes for a task, each naming one tool call (for example a file to read) and its purpose.',
  observation: 'What a tool call actually returned during a run; only observations count as evidence for the answer.',
  ollama: 'A local model server; planscope talks to it over HTTP at OLLAMA_HOST (default http://127.0.0.1:11434).',
  num_ctx: 'The Ollama option that sets the context window in tokens; text beyond it is silently dropped.',
  num_predict: 'The Ollama option that caps how many tokens one reply may generate.',
  validator: 'The policy check between the Planner and the Executor: it accepts or rejects each step of a plan.',
  citation: 'A reference from the answer to the lines of an observation, checked by the Checker against what was read.',
  'offline baseline': 'The no-LLM model: it ranks files by the words of the task and answers by quoting matching lines.',
  mcp: 'The Model Context Protocol: how planscope connects to tool servers, over stdio or Streamable HTTP.',
};

export const GLOSSARY_SERVER_NAME = 'planscope-glossary';

export function createGlossaryServer(options: { delayMs?: number; echoTrace?: boolean } = {}): McpServer {
  const pause = () => new Promise((resolve) => setTimeout(resolve, options.delayMs ?? 0));
  const server = new McpServer({ name: GLOSSARY_SERVER_NAME, version: '0.1.0' });

  server.registerTool(
    'define',
    {
      title: 'Define a term',
      description: 'Returns the definition of a term from a small glossary of planscope and its sample workspace.\nTerms are matched case-insensitively.',
      inputSchema: z.object({ term: z.string().min(1).max(200).describe('The term to define, e.g. "plan" or "num_ctx"') }),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ term }, extra) => {
      await pause();
      const key = term.trim().toLowerCase();
      const definition = GLOSSARY[key];
      if (definition === undefined) {
        return { isError: true, content: [{ type: 'text', text: `unknown term: ${term}` }] };
      }
      const trace = options.echoTrace ? `\ntraceparent: ${String(extra._meta?.traceparent ?? 'none')}` : '';
      return { content: [{ type: 'text', text: `${key}: ${definition}${trace}` }] };
    },
  );

  server.registerTool(
    'count_words',
    {
      title: 'Count words',
      description: 'Counts the whitespace-separated words of a text.',
      inputSchema: z.object({ text: z.string().max(1_000_000).describe('The text whose words are counted') }),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ text }) => {
      await pause();
      const words = text.split(/\s+/).filter(Boolean).length;
      return { content: [{ type: 'text', text: `${words} ${words === 1 ? 'word' : 'words'}` }] };
    },
  );

  return server;
}

async function main(): Promise<void> {
  // stdout is the protocol channel: anything logged goes to stderr.
  console.log = console.error;
  console.info = console.error;
  const lang = process.env.GLOSSARY_LANG ?? 'en';
  if (lang !== 'en') {
    process.stderr.write(`glossary: unsupported GLOSSARY_LANG=${lang} (only "en" exists)\n`);
    process.exit(2);
  }
  const delayMs = Number(process.env.GLOSSARY_DELAY_MS ?? '0');
  const server = createGlossaryServer({
    delayMs: Number.isFinite(delayMs) && delayMs > 0 ? delayMs : 0,
    echoTrace: process.env.GLOSSARY_ECHO_TRACE === '1',
  });
  await server.connect(new StdioServerTransport());
  process.stderr.write('glossary: ready on stdio\n');
}

const isEntry = process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isEntry) {
  main().catch((error: unknown) => {
    process.stderr.write(`glossary: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
}
