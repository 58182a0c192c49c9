import { signAction } from '@/server/http/audit-trail';
import { handle, readJsonBody } from '@/server/http/respond';
import { saveCase } from '@/server/eval/stored-suites';
import { getRuntime } from '@/server/runtime';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

const MAX_BODY_BYTES = 256 * 1024;

/** Saves an evaluation case made from a run into the stored suite, creating it if there is none. */
export function POST(request: Request, { params }: { params: Promise<{ name: string }> }): Promise<Response> {
  return handle(async () => {
    const { name } = await params;
    const { store, suites, config } = getRuntime();
    const saved = await saveCase({ runs: store, suites }, config, name, await readJsonBody(request, MAX_BODY_BYTES));
    await signAction('suite_case_saved', { subject: name });
    return Response.json(saved, { status: 201 });
  });
}
