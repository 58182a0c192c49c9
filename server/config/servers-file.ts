import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { PlanscopeError } from '../errors';

/**
 * The extra MCP servers planscope connects to, from a JSON file in the
 * `mcpServers` shape other MCP clients use:
 *
 *   { "mcpServers": {
 *       "glossary": { "command": "node", "args": ["server.js"], "env": { "LANG": "en" }, "cwd": "tools" },
 *       "remote":   { "url": "http://127.0.0.1:8931/mcp" } } }
 *
 * A stdio server is `{command, args?, env?, cwd?}` (cwd relative to the
 * file's folder, which is also the default; env merged over the SDK's
 * small safe default environment, never planscope's own); an HTTP server is
 * `{url}` (Streamable HTTP). Either may say `allowWrite: true` to offer
 * plans its tools that are not annotated read-only. A stdio server's first
 * argument naming a directory is the root it serves files from
 * (tool-servers.ts judges path arguments on disk there). Parsed and
 * validated here, once, by loadConfig.
 */

/** What the plans name: `<server>.<tool>`, so a server name has no dot. */
export const SERVER_NAME_PATTERN = /^[a-z][a-z0-9_-]{0,31}$/;
/** The built-in workspace bridge's name; a configured server cannot take it. */
export const RESERVED_SERVER_NAME = 'workspace';
/** Servers one file may declare. */
export const MAX_TOOL_SERVERS = 16;
export const CONFIG_FILE_NAME = 'planscope.config.json';

export const StdioServerConfig = z.strictObject({
  command: z.string().trim().min(1, 'must not be empty').max(4096),
  args: z.array(z.string().max(16_384)).max(256).optional(),
  /** Merged over the SDK's `getDefaultEnvironment()` (HOME, PATH, …). */
  env: z
    .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name'), z.string().max(65_536))
    .optional(),
  /** Absolute once loaded from a file; relative paths resolve against the process's cwd. */
  cwd: z.string().trim().min(1, 'must not be empty').max(4096).optional(),
  /** Offer plans the tools not annotated `readOnlyHint: true` too. Default false. */
  allowWrite: z.boolean().optional(),
});
export type StdioServerConfig = z.infer<typeof StdioServerConfig>;

export const HttpServerConfig = z.strictObject({
  /** A Streamable HTTP endpoint, http or https. */
  url: z
    .string()
    .trim()
    .max(4096)
    .refine((value) => {
      try {
        const url = new URL(value);
        return url.protocol === 'http:' || url.protocol === 'https:';
      } catch {
        return false;
      }
    }, 'must be an http:// or https:// URL'),
  /** Offer plans the tools not annotated `readOnlyHint: true` too. Default false. */
  allowWrite: z.boolean().optional(),
});
export type HttpServerConfig = z.infer<typeof HttpServerConfig>;

export type ServerConfig = StdioServerConfig | HttpServerConfig;

export function isHttpServer(server: ServerConfig): server is HttpServerConfig {
  return 'url' in server;
}

const FileSchema = z.strictObject({
  $schema: z.string().optional(),
  mcpServers: z.record(z.string(), z.unknown()),
});

/** A problem with the file; loadConfig turns it into a ConfigError. */
export class ServersConfigError extends PlanscopeError {
  override name = 'ServersConfigError';
}

/**
 * Reads the servers file. A missing file means no extra servers unless it
 * was named explicitly (then a missing file is a mistake worth stopping
 * for). Throws ServersConfigError naming the file and the offending key.
 */
export function readServersFile(file: string, options: { required: boolean }): Record<string, ServerConfig> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && !options.required) return {};
    if (code === 'ENOENT') throw new ServersConfigError(`${file} does not exist (named by PLANSCOPE_CONFIG)`);
    throw new ServersConfigError(`${file} cannot be read: ${error instanceof Error ? error.message : String(error)}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ServersConfigError(`${file} is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  return parseServersConfig(json, file);
}

/** Validates the file's content; stdio `cwd` is resolved against the file's folder (the default cwd too). */
export function parseServersConfig(json: unknown, file: string): Record<string, ServerConfig> {
  const fail = (key: string, message: string): never => {
    throw new ServersConfigError(`${file}: ${key ? `${key}: ` : ''}${message}`);
  };
  if (json === null || typeof json !== 'object' || Array.isArray(json)) fail('', 'expected a JSON object like {"mcpServers": {…}}');
  const failIssue = (key: string, error: z.ZodError): never => {
    const issue = error.issues[0];
    const sub = issuePath(issue?.path ?? []);
    return fail([key, sub].filter(Boolean).join('.'), issue?.message ?? 'invalid');
  };
  const top = FileSchema.safeParse(json);
  if (!top.success) failIssue('', top.error);
  const entries = Object.entries(top.data!.mcpServers);
  if (entries.length > MAX_TOOL_SERVERS) fail('mcpServers', `at most ${MAX_TOOL_SERVERS} servers, got ${entries.length}`);

  const folder = path.dirname(path.resolve(file));
  const servers: Record<string, ServerConfig> = {};
  for (const [name, raw] of entries) {
    const key = `mcpServers.${name}`;
    if (name === RESERVED_SERVER_NAME) {
      fail(key, `"${RESERVED_SERVER_NAME}" is reserved for planscope's built-in workspace bridge; give this server another name`);
    }
    if (!SERVER_NAME_PATTERN.test(name)) {
      fail(key, `server names must match ${SERVER_NAME_PATTERN.source} (lower case, digits, "_" or "-", at most 32 characters)`);
    }
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
      fail(key, 'expected an object: {"command": …} for a stdio server or {"url": …} for Streamable HTTP');
    }
    const entry = raw as Record<string, unknown>;
    if ('url' in entry && 'command' in entry) fail(key, 'has both "command" and "url"; a server is either stdio (command) or HTTP (url)');
    if ('url' in entry) {
      const parsed = HttpServerConfig.safeParse(entry);
      if (!parsed.success) failIssue(key, parsed.error);
      servers[name] = { url: parsed.data!.url, allowWrite: parsed.data!.allowWrite ?? false };
    } else if ('command' in entry) {
      const parsed = StdioServerConfig.safeParse(entry);
      if (!parsed.success) failIssue(key, parsed.error);
      const { command, args, env, cwd, allowWrite } = parsed.data!;
      servers[name] = {
        command,
        args: args ?? [],
        env: env ?? {},
        cwd: path.resolve(folder, cwd ?? '.'),
        allowWrite: allowWrite ?? false,
      };
    } else {
      fail(key, 'needs "command" (a stdio server) or "url" (a Streamable HTTP server)');
    }
  }
  return servers;
}

function issuePath(parts: readonly PropertyKey[]): string {
  return parts.map(String).join('.');
}
