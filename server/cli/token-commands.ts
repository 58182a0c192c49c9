import { parseArgs } from 'node:util';
import { ExitCode } from '../../lib/codes';
import { Person } from '../../lib/person';
import { Role } from '../../lib/roles';
import type { Config } from '../config';
import { openStores } from '../store/stores';
import type { NamedToken } from '../store/token-store';
import { printRefusal, refusalPrinted } from './refusal';
import { printable, printableJson } from './terminal-text';

export const TOKEN_USAGE = [
  `       npm run planscope -- token create --name <name> --role ${Role.options.join('|')} [--json]`,
  '       npm run planscope -- token list [--json]',
  '       npm run planscope -- token revoke <name|id>',
];

/**
 * `token create|list|revoke`: the named tokens people and machines use with the dashboard and the API, on the
 * store alone (the server need not run; it sees a new or revoked token at its next request). The token itself is
 * printed once, at creation, on stdout; the store keeps only its hash.
 */
export async function tokenCommand(args: string[], config: Config, fail: (reason: string) => never): Promise<number> {
  const { values, positionals } = parsed(args, fail);
  const [action, subject, ...extra] = positionals;
  if (extra.length > 0) fail(`unexpected argument "${extra[0]}"`);
  if (action !== 'create' && action !== 'list' && action !== 'revoke') fail(action ? `unknown token command "${action}"` : 'missing token command (create, list or revoke)');
  if (action !== 'revoke' && subject !== undefined) fail(`unexpected argument "${subject}"`);
  if (action !== 'create' && (values.name !== undefined || values.role !== undefined)) fail('--name and --role are for token create');
  const stores = openStores(config);
  try {
    return await refusalPrinted(async () => {
      await stores.ready;
      if (action === 'create') {
        const name = Person.safeParse(values.name?.trim());
        if (!name.success) fail(`--name: a name of 1 to ${Person.maxLength} characters is needed`);
        const role = Role.safeParse(values.role);
        if (!role.success) fail(`--role: one of ${Role.options.join(', ')}`);
        const { token, secret } = await stores.tokens.create(name.data, role.data);
        await stores.audit.record({ person: config.person, action: 'token_created', runId: null, subject: token.name, detail: token.role, imported: false });
        if (values.json) process.stdout.write(`${printableJson({ ...token, token: secret })}\n`);
        else {
          process.stderr.write(`${printable(`Token ${token.id} for ${token.name} (${token.role}). It is shown this once; the store keeps only its hash:`)}\n`);
          process.stdout.write(`${secret}\n`);
        }
        return ExitCode.completed;
      }
      if (action === 'list') {
        const tokens = await stores.tokens.list();
        process.stdout.write(values.json ? `${printableJson(tokens)}\n` : `${printable(tokenTable(tokens))}\n`);
        return ExitCode.completed;
      }
      if (!subject) fail('missing token name or id');
      const revoked = await stores.tokens.revoke(subject);
      if (!revoked) return printRefusal('token_not_found', `No token has the name or id ${subject}; \`token list\` shows them.`);
      await stores.audit.record({ person: config.person, action: 'token_revoked', runId: null, subject: revoked.name, detail: revoked.role, imported: false });
      process.stderr.write(`${printable(`Revoked ${revoked.id} (${revoked.name}, ${revoked.role}): it is refused from the next request on.`)}\n`);
      return ExitCode.completed;
    });
  } finally {
    await stores.close();
  }
}

function parsed(args: string[], fail: (reason: string) => never) {
  try {
    return parseArgs({
      args,
      allowPositionals: true,
      options: { name: { type: 'string' }, role: { type: 'string' }, json: { type: 'boolean', default: false } },
    });
  } catch (error) {
    return fail((error as Error).message);
  }
}

function tokenTable(tokens: NamedToken[]): string {
  if (tokens.length === 0) return 'No named tokens. Create one: npm run planscope -- token create --name <name> --role <role>';
  const when = (at: number | null) => (at === null ? 'never' : new Date(at).toISOString().replace(/\.\d+Z$/, 'Z'));
  const rows = [['ID', 'NAME', 'ROLE', 'CREATED', 'LAST USED'], ...tokens.map((t) => [t.id, t.name, t.role, when(t.createdAt), when(t.lastUsedAt)])];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  return rows.map((row) => row.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd()).join('\n');
}
