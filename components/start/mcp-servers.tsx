'use client';

import type { McpServerStatus } from '@/lib/api';
import { ScrollBox } from '../ui/scroll-box';
import { useMcpServers } from './use-mcp-servers';

/**
 * The MCP servers a run can use: the built-in workspace bridge and those of
 * planscope.config.json, each with its status and tools. A server that
 * failed shows why, in full; a tool plans are not offered (not annotated
 * read-only, no `allowWrite`) is listed with the reason. Names and
 * descriptions are the servers' own text, rendered as plain text.
 */
export function McpServersPanel() {
  const { data, error, isPending, isFetching, refetch } = useMcpServers();

  return (
    <section data-testid="mcp-servers" aria-labelledby="mcp-servers-title" className="space-y-1.5 border-t border-zinc-200 pt-3 dark:border-zinc-800">
      <div className="flex items-center gap-2">
        <h2 id="mcp-servers-title" className="text-xs font-semibold tracking-wide text-zinc-600 uppercase dark:text-zinc-400">
          MCP servers
        </h2>
        {data && (
          <span className="text-[11px] muted">
            {data.servers.filter((s) => s.status === 'connected').length} of {data.servers.length} connected
          </span>
        )}
        {!isPending && (
          <button type="button" className="link ml-auto text-xs" onClick={() => void refetch()} disabled={isFetching}>
            {isFetching ? 'checking…' : 'refresh'}
          </button>
        )}
      </div>
      {isPending && <p className="text-xs muted">Connecting to MCP servers…</p>}
      {error && (
        <p role="alert" className="text-xs text-red-700 dark:text-red-300">
          Could not list MCP servers: {error.message}
        </p>
      )}
      {data && (
        <ul className="space-y-1.5">
          {data.servers.map((server) => (
            <ServerItem key={server.name} server={server} />
          ))}
        </ul>
      )}
    </section>
  );
}

function ServerItem({ server }: { server: McpServerStatus }) {
  const failed = server.status === 'failed';
  const notOffered = server.tools.filter((t) => !t.offered).length;
  return (
    <li
      data-testid={`mcp-server-${server.name}`}
      data-status={server.status}
      className={`rounded border px-2 py-1.5 text-xs ${
        failed ? 'border-red-300 bg-red-50 dark:border-red-900 dark:bg-red-950/40' : 'border-zinc-200 dark:border-zinc-800'
      }`}
    >
      <div className="flex items-center gap-1.5">
        <span aria-hidden className={`size-2 shrink-0 rounded-full ${failed ? 'bg-red-500' : 'bg-emerald-500'}`} />
        <code className="font-mono font-semibold break-anywhere">{server.name}</code>
        <span className="muted">
          {server.transport}
          {server.name === 'workspace' ? ' · built-in' : ''}
        </span>
        <span className={`ml-auto shrink-0 ${failed ? 'font-medium text-red-700 dark:text-red-300' : 'muted'}`}>
          {failed ? 'failed' : `${server.tools.length} ${server.tools.length === 1 ? 'tool' : 'tools'}`}
          {!failed && notOffered > 0 && `, ${notOffered} not offered`}
        </span>
      </div>
      {failed && server.error && (
        <ScrollBox className="mt-1 max-h-40" label={`Error of ${server.name}`}>
          <pre data-testid="mcp-server-error" className="font-mono text-[11px] whitespace-pre-wrap text-red-900 break-anywhere dark:text-red-200">
            {server.error}
          </pre>
        </ScrollBox>
      )}
      {server.tools.length > 0 && (
        <ul className="mt-1 space-y-0.5">
          {server.tools.map((tool) =>
            tool.offered ? (
              <li key={tool.qualified} className="flex min-w-0 gap-1.5" title={tool.description}>
                <code className="shrink-0 font-mono">{tool.name}</code>
                <span className="min-w-0 truncate muted">{firstLine(tool.description)}</span>
              </li>
            ) : (
              <li key={tool.qualified} data-testid="mcp-tool-not-offered" className="min-w-0" title={tool.description}>
                <code className="font-mono text-zinc-500 line-through dark:text-zinc-400">{tool.name}</code>{' '}
                <span className="text-amber-800 dark:text-amber-300">not offered to plans: {tool.notOfferedReason}</span>
              </li>
            ),
          )}
        </ul>
      )}
    </li>
  );
}

function firstLine(text: string): string {
  const line = text.trim().split(/\r?\n/, 1)[0] ?? '';
  return line.length > 160 ? `${line.slice(0, 159)}…` : line;
}
