import type { SuiteList } from '@/lib/eval-case';
import { handle } from '@/server/http/respond';
import { getRuntime } from '@/server/runtime';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

/** The stored suites (cases saved from runs), by name. */
export function GET(): Promise<Response> {
  return handle(async () => {
    const body: SuiteList = { suites: await getRuntime().suites.list() };
    return Response.json(body);
  });
}
