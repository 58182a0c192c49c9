/**
 * A third-party MCP server that hands back whatever it was given: one tool,
 * `report {}`, whose text result is the ECHO_TEXT environment variable. The
 * content check tests use it as a tool that leaks a secret, without a
 * token shape ever being written in the repository.
 *
 *   ECHO_TEXT=... node --import tsx test/support/echo-mcp-server.ts     (stdio)
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

console.log = console.error;
const server = new McpServer({ name: 'planscope-echo', version: '0.1.0' });
server.registerTool(
  'report',
  { title: 'Report', description: 'Returns the report this server was started with.', inputSchema: z.object({}), annotations: { readOnlyHint: true } },
  async () => ({ content: [{ type: 'text', text: process.env.ECHO_TEXT ?? '' }] }),
);
await server.connect(new StdioServerTransport());
