import { z } from 'zod';

/**
 * `planscope doctor`: what is checked of a setup, in order, and what each
 * check found. The CLI prints it as a table (or `--json`); the start page's
 * "Setup checks" panel shows the same report (`POST /api/doctor`).
 */

export const DoctorCheckId = z.enum([
  'ollama_reachable',
  'ollama_version',
  'model_pulled',
  'model_capabilities',
  'structured_output',
  'model_speed',
  'workspace_readable',
  'bridge_starts',
  'data_writable',
  'workers_available',
  'mcp_servers',
]);
export type DoctorCheckId = z.infer<typeof DoctorCheckId>;

/** `ok`; `warn`: works, but worth a look; `fail`: a run would fail; `skipped`: an earlier failure leaves nothing to check. */
export const DoctorVerdict = z.enum(['ok', 'warn', 'fail', 'skipped']);
export type DoctorVerdict = z.infer<typeof DoctorVerdict>;

export const DoctorCheck = z.object({
  id: DoctorCheckId,
  /** What was checked, in a few words (`Ollama reachable`). */
  title: z.string(),
  verdict: DoctorVerdict,
  /** What was found: a version, a list, a measurement, or what went wrong (the server's words kept). */
  detail: z.string(),
  /** What to do about a `fail` or `warn`; null when nothing. */
  fix: z.string().nullable(),
});
export type DoctorCheck = z.infer<typeof DoctorCheck>;

export const DoctorReport = z.object({
  /** Every check a run needs passed (`ok` or `warn`): the CLI exits 0 exactly then. */
  ok: z.boolean(),
  /** Masked. */
  host: z.string(),
  model: z.string(),
  checks: z.array(DoctorCheck),
});
export type DoctorReport = z.infer<typeof DoctorReport>;

/** A run needs every check but a warning one to pass; a skipped check was skipped for a failure before it. */
export function reportOk(checks: readonly DoctorCheck[]): boolean {
  return checks.every((c) => c.verdict === 'ok' || c.verdict === 'warn');
}
