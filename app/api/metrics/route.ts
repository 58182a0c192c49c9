import { handle } from '@/server/http/respond';
import { getRuntime } from '@/server/runtime';
import { PROMETHEUS_CONTENT_TYPE } from '@/server/telemetry/metric-registry';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

/** Prometheus text format; behind the same token gate as the rest of the API (proxy.ts). */
export function GET(): Promise<Response> {
  return handle(() => {
    const body = getRuntime().telemetry.metrics.render();
    return new Response(body, { headers: { 'Content-Type': PROMETHEUS_CONTENT_TYPE, 'Cache-Control': 'no-store' } });
  });
}
