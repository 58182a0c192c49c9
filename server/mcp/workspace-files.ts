import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, lstatSync, openSync, promises as fs, readdirSync, readlinkSync, readSync, realpathSync, statSync, type Dirent, type Stats } from 'node:fs';
import path from 'node:path';
import { checkPlanPath, DEFAULT_PATH_POLICY, isInside, type PathPolicy } from '../../lib/policy';
import type { StepErrorCode } from '../../lib/codes';
import type { ListFilesResult } from './bridge-protocol';
import type { BridgeOutcome, FileRead, FileStat, WorkspaceFile } from './types';

/**
 * Read-only access to one workspace directory, enforcing the path policy at
 * every layer where a path can change meaning:
 *   1. the requested path (lib/policy, run here again whatever validated the plan),
 *   2. its real path after `realpath` (symlinks resolved: must stay inside
 *      the workspace's real root and must not be a denied file),
 *   3. the file actually opened (O_NOFOLLOW, then fstat and, on Linux,
 *      /proc/self/fd), so that a component swapped for a symlink between
 *      check and open is caught. The reference MCP filesystem server checks
 *      the realpath and then opens by name, which leaves exactly that race.
 * Every failure carries a stable StepErrorCode and a message that names the
 * requested path only: never file contents, never an absolute path outside.
 */

export interface WorkspaceRoot {
  /** The workspace directory after `realpath`, resolved once at start-up. */
  readonly real: string;
  /** The deny-list every request to this workspace is judged by (the configured one, passed to the bridge by flags). */
  readonly policy: PathPolicy;
  /** Whether a regular file with more than one hard link is served (PLANSCOPE_ALLOW_HARD_LINKS). */
  readonly allowHardLinks: boolean;
}

type Outcome<T> = BridgeOutcome<T>;
type Refusal = Extract<Outcome<never>, { ok: false }>;

/**
 * O_NOFOLLOW: a last component that became a symlink after `realpath` fails
 * with ELOOP instead of being followed. O_NONBLOCK: opening a FIFO for reading
 * returns at once instead of waiting for a writer, so a planted named pipe
 * cannot hang the bridge (fstat then refuses it).
 */
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const READ_CHUNK_BYTES = 64 * 1024;
/** Directories never walked by list_files: dependencies and VCS internals are not workspace content. */
const SKIPPED_DIRECTORIES = new Set(['node_modules', '.git']);
/** list_files looks at no more than this many entries per file it may return, so a huge tree cannot stall it. */
const SCAN_ENTRIES_PER_LISTED_FILE = 20;

export async function resolveWorkspaceRoot(
  directory: string,
  options: { allowHardLinks?: boolean; policy?: PathPolicy } = {},
): Promise<WorkspaceRoot> {
  // Resolve the root itself once, like the CVE-2025-53109 fix does for
  // allowed directories: every later containment check compares real paths.
  const real = await fs.realpath(path.resolve(directory));
  const stats = await fs.stat(real);
  if (!stats.isDirectory()) throw new Error(`workspace ${directory} is not a directory`);
  return { real, allowHardLinks: options.allowHardLinks === true, policy: options.policy ?? DEFAULT_PATH_POLICY };
}

export async function statWorkspaceFile(root: WorkspaceRoot, requested: string): Promise<Outcome<FileStat>> {
  return withVerifiedFile(root, requested, (_fd, stats, display) => ({
    ok: true,
    value: { path: display, bytes: stats.size, mtimeMs: stats.mtimeMs },
  }));
}

export async function readWorkspaceFile(
  root: WorkspaceRoot,
  requested: string,
  maxFileBytes: number,
): Promise<Outcome<FileRead>> {
  return withVerifiedFile(root, requested, (fd, stats, display) => {
    if (stats.size > maxFileBytes) {
      return failure('too_large', `${display} is ${stats.size} bytes, over the ${maxFileBytes}-byte limit`);
    }
    const bytes = readBounded(fd, maxFileBytes);
    if (bytes === null) {
      return failure('too_large', `${display} grew over the ${maxFileBytes}-byte limit while being read`);
    }
    const text = decodeText(bytes);
    if (text === null) {
      return failure('binary', `${display} is not a UTF-8 text file (NUL bytes or invalid UTF-8)`);
    }
    return {
      ok: true,
      value: {
        path: display,
        text,
        sha256: createHash('sha256').update(bytes).digest('hex'),
        bytes: bytes.length,
        mtimeMs: stats.mtimeMs,
        lines: countLines(text),
      },
    };
  });
}

/**
 * Regular files the bridge would serve, breadth first (shallow files first,
 * so a truncated listing still shows the project's top level), sorted by path.
 */
export async function listWorkspaceFiles(root: WorkspaceRoot, maxEntries: number): Promise<ListFilesResult> {
  const files: WorkspaceFile[] = [];
  const maxScanned = Math.max(maxEntries, 1) * SCAN_ENTRIES_PER_LISTED_FILE;
  const pending: string[] = [''];
  let scanned = 0;
  let truncated = false;

  walk: while (pending.length > 0) {
    const directory = pending.shift() ?? '';
    const entries = readDirectorySorted(path.join(root.real, directory));
    for (const entry of entries) {
      scanned += 1;
      if (scanned > maxScanned) {
        truncated = true;
        break walk;
      }
      const relative = directory === '' ? entry.name : `${directory}/${entry.name}`;
      const found = classifyEntry(root, relative, entry);
      if (found === 'directory') pending.push(relative);
      if (found === null || found === 'directory') continue;
      if (files.length >= maxEntries) {
        truncated = true;
        break walk;
      }
      files.push(found);
    }
  }
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { files, truncated };
}

/** A listable file, a directory to descend into, or null for anything hidden. */
function classifyEntry(root: WorkspaceRoot, relative: string, entry: Dirent): WorkspaceFile | 'directory' | null {
  const verdict = checkPlanPath(relative, root.policy);
  // Only list what read_file would accept under exactly this name: denied
  // names, and names the policy would spell differently (not NFKC-stable),
  // stay hidden.
  if (!verdict.ok || verdict.path !== relative) return null;
  if (entry.isDirectory()) return SKIPPED_DIRECTORIES.has(entry.name) ? null : 'directory';
  try {
    if (entry.isFile()) {
      const stats = lstatSync(path.join(root.real, relative));
      return stats.isFile() && !refusedHardLink(root, stats) ? { path: relative, bytes: stats.size } : null;
    }
    if (entry.isSymbolicLink()) {
      // Symlinked directories are never followed (cycles, duplicates, and
      // their target is listed in its own place if it is inside); a symlink
      // to a file is listed only if reading it would succeed the same checks.
      const real = realpathSync.native(path.join(root.real, relative));
      if (checkRealPath(root, relative, real) !== null) return null;
      const stats = statSync(real);
      return stats.isFile() && !refusedHardLink(root, stats) ? { path: relative, bytes: stats.size } : null;
    }
  } catch {
    // Vanished, dangling or unreadable entries are simply not listed.
    return null;
  }
  return null; // FIFOs, sockets, devices
}

function readDirectorySorted(directory: string): Dirent[] {
  try {
    const entries = readdirSync(directory, { withFileTypes: true });
    return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch {
    return [];
  }
}

/**
 * Runs `use` on the opened file once all three layers of checks passed, and
 * always closes it. After `realpath`, the file system calls are synchronous:
 * the bridge serves one client, and a sync call costs microseconds where an
 * async one is a round trip through libuv's thread pool (~0.1 ms each, six
 * per read; see docs/performance.md). The open cannot block on a FIFO
 * (O_NONBLOCK). `realpath` stays async: tests simulate the swap race there.
 */
async function withVerifiedFile<T>(
  root: WorkspaceRoot,
  requested: string,
  use: (fd: number, stats: Stats, display: string) => Outcome<T>,
): Promise<Outcome<T>> {
  const located = await realPathOf(root, requested);
  if (!located.ok) return located;
  const { display, real } = located;

  let fd: number;
  try {
    fd = openSync(real, OPEN_FLAGS);
  } catch (error) {
    return fileSystemFailure(display, error);
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) return failure('not_a_file', `${display} is ${describeKind(stats)}, not a regular file`);
    const swapped = checkOpenedFile(root, display, fd, real, stats);
    if (swapped) return swapped;
    if (refusedHardLink(root, stats)) return hardLinkFailure(display, stats);
    return use(fd, stats, display);
  } catch (error) {
    return fileSystemFailure(display, error);
  } finally {
    closeSync(fd);
  }
}

/** The first two layers: the requested path under the policy, then its real path (symlinks resolved) inside the root and not denied. */
async function realPathOf(root: WorkspaceRoot, requested: string): Promise<{ ok: true; display: string; real: string } | Refusal> {
  const verdict = checkPlanPath(requested, root.policy);
  if (!verdict.ok) {
    return failure('denied_by_bridge', `${quote(requested)} is refused by the workspace policy: ${verdict.message} (${verdict.code})`);
  }
  const display = verdict.path;
  let real: string;
  try {
    // The policy's normalised path, never the raw one: the kernel must not see
    // a `..` (through a symlinked directory it climbs from the link's target).
    real = await fs.realpath(path.join(root.real, display));
  } catch (error) {
    return fileSystemFailure(display, error);
  }
  return checkRealPath(root, display, real) ?? { ok: true, display, real };
}

/**
 * What another MCP server rooted at `root` (one that opens its path
 * arguments there, as the filesystem server does) would reach for a path
 * argument, judged on disk as the bridge judges its own reads, before the
 * call goes out: a symlink leading outside or to a denied file, a hard
 * link, a FIFO, socket or device are refused with the bridge's codes. A
 * directory passes (tools list and search them), and so does a path that
 * does not exist (the server answers for it), unless a dangling symlink
 * stands there. `.` is the root itself. The server still opens by name
 * afterwards: what changes on disk between this check and its open is
 * beyond planscope (docs/reliability.md).
 */
export async function checkServedPath(root: WorkspaceRoot, requested: string): Promise<Outcome<null>> {
  if (requested === '.') return { ok: true, value: null };
  const located = await realPathOf(root, requested);
  if (!located.ok) {
    if (located.code !== 'not_found') return located;
    const display = checkPlanPath(requested, root.policy);
    // Only a link can exist where realpath found nothing: followed by a server that writes, it could lead anywhere.
    const dangling = display.ok && lstatOrNull(path.join(root.real, display.path))?.isSymbolicLink();
    return dangling ? failure('denied_by_bridge', `${requested} is a symlink to nothing inside the workspace`) : { ok: true, value: null };
  }
  const { display, real } = located;
  let stats: Stats;
  try {
    stats = statSync(real);
  } catch (error) {
    return fileSystemFailure(display, error);
  }
  if (stats.isDirectory()) return { ok: true, value: null };
  if (!stats.isFile()) return failure('not_a_file', `${display} is ${describeKind(stats)}, not a regular file`);
  if (refusedHardLink(root, stats)) return hardLinkFailure(display, stats);
  return { ok: true, value: null };
}

function lstatOrNull(file: string): Stats | null {
  try {
    return lstatSync(file);
  } catch {
    return null;
  }
}

/**
 * The real path must be inside the real root, compared by segments
 * (CVE-2025-53110: `/ws` must not admit `/ws2`), and must itself pass the
 * policy, so a symlink to `.env.local` inside the workspace is refused as
 * firmly as `.env.local` itself (CVE-2025-53109: a symlink check that can be
 * skipped is no check). Returns null when the real path is acceptable.
 */
function checkRealPath(root: WorkspaceRoot, display: string, real: string): Refusal | null {
  if (!isInside(root.real, real)) {
    return failure('denied_by_bridge', `${display} resolves outside the workspace (symlink escape)`);
  }
  const relative = path.relative(root.real, real);
  if (relative === '') return failure('not_a_file', `${display} is the workspace directory, not a file`);
  const verdict = checkPlanPath(relative, root.policy);
  if (!verdict.ok) {
    return failure('denied_by_bridge', `${display} resolves to a file the policy refuses: ${verdict.message} (${verdict.code})`);
  }
  return null;
}

/**
 * Re-verifies the file behind the descriptor, closing the window between
 * `realpath` and `open` in which a parent directory could be swapped for a
 * symlink. Linux names the opened file in /proc/self/fd; elsewhere (or
 * without procfs) the descriptor must still be the inode at `real`.
 */
function checkOpenedFile(root: WorkspaceRoot, display: string, fd: number, real: string, stats: Stats): Outcome<never> | null {
  if (process.platform === 'linux') {
    let opened: string | null = null;
    try {
      opened = readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      opened = null;
    }
    if (opened !== null) return checkRealPath(root, display, opened.replace(/ \(deleted\)$/, ''));
  }
  const current = statSync(real);
  if (current.dev !== stats.dev || current.ino !== stats.ino) {
    return failure('denied_by_bridge', `${display} changed while it was being opened`);
  }
  return null;
}

/**
 * A hard link is the same file under another name, and nothing tells where
 * the other names are: one may be outside the workspace, or be `.env`. No
 * real-path check can see it (both names are equally real), so a regular
 * file with more than one link is refused unless the operator allows it.
 * Checked on the opened descriptor's fstat, so it is the file that is read.
 */
function refusedHardLink(root: WorkspaceRoot, stats: Stats): boolean {
  return stats.nlink > 1 && !root.allowHardLinks;
}

function hardLinkFailure(display: string, stats: Stats): Outcome<never> {
  return failure('hard_link', `${display} has ${stats.nlink} hard links; a file with another name may be outside the workspace or a denied file, so it is not served`);
}

/** At most `maxBytes` bytes, or null when the file holds more (it may grow after fstat). */
function readBounded(fd: number, maxBytes: number): Buffer | null {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const chunk = Buffer.alloc(READ_CHUNK_BYTES);
    const bytesRead = readSync(fd, chunk, 0, chunk.length, null);
    if (bytesRead === 0) return Buffer.concat(chunks, total);
    total += bytesRead;
    if (total > maxBytes) return null;
    chunks.push(chunk.subarray(0, bytesRead));
  }
}

/** UTF-8 text, or null for what we treat as binary: any NUL byte, or invalid UTF-8. */
function decodeText(bytes: Buffer): string | null {
  if (bytes.includes(0)) return null;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}

/** Lines as an editor numbers them: a final newline does not start another line. */
function countLines(text: string): number {
  if (text === '') return 0;
  const newlines = text.split('\n').length - 1;
  return text.endsWith('\n') ? newlines : newlines + 1;
}

function describeKind(stats: Stats): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a named pipe (FIFO)';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  return 'a special file';
}

/** Maps an fs error to a step failure by its code alone: its message would echo absolute paths. */
function fileSystemFailure(display: string, error: unknown): Refusal {
  const code = error instanceof Error && 'code' in error ? String(error.code) : 'unknown';
  switch (code) {
    case 'ENOENT':
      return failure('not_found', `${display} does not exist in the workspace`);
    case 'ENOTDIR':
      return failure('not_found', `${display} does not exist in the workspace (a parent is not a directory)`);
    case 'ELOOP':
      return failure('denied_by_bridge', `${display} is a symlink loop, or became a symlink while being opened`);
    case 'EISDIR':
      return failure('not_a_file', `${display} is a directory, not a regular file`);
    case 'EACCES':
    case 'EPERM':
      return failure('tool_error', `${display} cannot be read (permission denied by the operating system)`);
    default:
      return failure('tool_error', `${display} could not be read (${code})`);
  }
}

function failure(code: StepErrorCode, message: string): Refusal {
  return { ok: false, code, message };
}

/** The requested path as sent, escaped and shortened, for messages about paths the policy refused. */
function quote(requested: string): string {
  const shown = requested.length > 120 ? `${requested.slice(0, 120)}…` : requested;
  return JSON.stringify(shown);
}
