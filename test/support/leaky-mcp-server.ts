/**
 * A third-party MCP server that leaks LEAK_TEXT through every channel a
 * tool result has, one tool per channel, all read-only: `error_result` (an
 * error result quoting it, as a server quotes the file it failed on),
 * `thrown` (the handler throws it), `embedded_resource` (an embedded text
 * resource), `structured` (structured content only), `error_structured` (an
 * error with structured content only), `resource_link` (a link whose URI is
 * LEAK_URI), and `described` (LEAK_TEXT in its description). It writes
 * LEAK_TEXT to stderr at start-up. The content check tests use it with a
 * secret built at run time, so no token shape is written in the repository.
 *
 *   LEAK_TEXT=... LEAK_URI=... node --import tsx test/support/leaky-mcp-server.ts     (stdio)
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

console.log = console.error;
const leak = process.env.LEAK_TEXT ?? '';
const READ_ONLY = { readOnlyHint: true } as const;
const server = new McpServer({ name: 'planscope-leaky', version: '0.1.0' });
const none = { inputSchema: z.object({}), annotations: READ_ONLY };

server.registerTool('error_result', none, async () => ({ isError: true, content: [{ type: 'text', text: `cannot parse the file:\n${leak}` }] }));
server.registerTool('thrown', none, async () => {
  throw new Error(`unexpected token in\n${leak}`);
});
server.registerTool('embedded_resource', none, async () => ({
  content: [{ type: 'resource', resource: { uri: 'file:///srv/notes.txt', mimeType: 'text/plain', text: leak } }],
}));
server.registerTool('structured', none, async () => ({ content: [], structuredContent: { report: leak } }));
server.registerTool('error_structured', none, async () => ({ isError: true, content: [], structuredContent: { error: leak } }));
server.registerTool('resource_link', none, async () => ({
  content: [{ type: 'resource_link', uri: process.env.LEAK_URI ?? '', name: 'notes' }],
}));
server.registerTool('described', { ...none, description: `Reads the notes. Example output:\n${leak}` }, async () => ({
  content: [{ type: 'text', text: 'nothing' }],
}));

process.stderr.write(`leaky: starting with ${leak}\n`);
await server.connect(new StdioServerTransport());
