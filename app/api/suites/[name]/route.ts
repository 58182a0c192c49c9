import { suiteFileName } from '@/lib/eval-case';
import { handle } from '@/server/http/respond';
import { RequestError } from '@/server/errors';
import { getRuntime } from '@/server/runtime';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

/** A stored suite as a suite file (the format of evals/sample-suite.json), downloaded under its name. */
export function GET(_request: Request, { params }: { params: Promise<{ name: string }> }): Promise<Response> {
  return handle(async () => {
    const { name } = await params;
    const suite = await getRuntime().suites.get(name);
    if (!suite) throw new RequestError('suite_not_found', `There is no stored suite ${name}.`);
    return new Response(`${JSON.stringify(suite, null, 2)}\n`, {
      headers: {
        'Content-Type': 'application/json; charset=utf-8',
        'Content-Disposition': `attachment; filename="${suiteFileName(name)}"`,
        'X-Content-Type-Options': 'nosniff',
        'Cache-Control': 'no-store',
      },
    });
  });
}
