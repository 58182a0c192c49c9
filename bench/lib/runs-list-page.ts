/** The time (ms) of one GET /api/runs?limit=50 on the dashboard at `baseUrl`: the runs list's first page, checked whole. */
export async function timeRunsListPage(baseUrl: string): Promise<number> {
  const started = performance.now();
  const res = await fetch(`${baseUrl}/api/runs?limit=50`);
  const body = (await res.json()) as { runs: unknown[] };
  if (!res.ok || body.runs.length !== 50) throw new Error(`GET /api/runs?limit=50: ${res.status}`);
  return performance.now() - started;
}
