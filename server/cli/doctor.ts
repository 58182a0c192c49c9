import { ExitCode } from '../../lib/codes';
import type { DoctorReport, DoctorVerdict } from '../../lib/doctor';
import type { Config } from '../config';
import { runDoctor } from '../doctor/checks';
import { printable, printableJson } from './terminal-text';

const MARK: Record<DoctorVerdict, string> = { ok: '✓ ok', warn: '! warn', fail: '✗ FAIL', skipped: '- skip' };

/** `planscope doctor [--json]`: exit 0 only when every check a run needs holds. */
export async function doctorCommand(config: Config, json: boolean): Promise<number> {
  const report = await runDoctor(config);
  process.stdout.write(json ? `${printableJson(report, 2)}\n` : `${printable(doctorTable(report))}\n`);
  return report.ok ? ExitCode.completed : ExitCode.failed;
}

/**
 * One row a check: its verdict, what was checked and what was found, and
 * under a failing or warning one what to do.
 */
export function doctorTable(report: DoctorReport): string {
  const verdictWidth = Math.max(...Object.values(MARK).map((m) => m.length));
  const titleWidth = Math.max(...report.checks.map((c) => c.title.length));
  const rows = report.checks.flatMap((c) => [
    `${MARK[c.verdict].padEnd(verdictWidth)}  ${c.title.padEnd(titleWidth)}  ${c.detail}`,
    ...(c.fix ? [`${' '.repeat(verdictWidth + titleWidth + 4)}fix: ${c.fix}`] : []),
  ]);
  const verdict = report.ok
    ? 'Ready: everything a run needs holds.'
    : `Not ready: ${report.checks.filter((c) => c.verdict === 'fail').length} check(s) failed; fix them from the top (later checks may have been skipped for them).`;
  return [`planscope doctor · model ${report.model} · Ollama ${report.host}`, '', ...rows, '', verdict].join('\n');
}
