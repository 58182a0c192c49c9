import { readFileSync } from 'node:fs';

/**
 * Resident memory of a process, in bytes, from `VmRSS` in /proc/<pid>/status;
 * null where that is not available (not Linux, no procfs, the process is gone).
 */
export function residentBytes(pid: number): number | null {
  if (process.platform !== 'linux') return null;
  let status: string;
  try {
    // A process's status, never a file of the app: nothing for the bundler to trace.
    status = readFileSync(/* turbopackIgnore: true */ `/proc/${pid}/status`, 'utf8');
  } catch {
    return null;
  }
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(status);
  return match ? Number(match[1]) * 1024 : null;
}
