import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { toEvalDetail } from '@/lib/eval';
import { EvalView } from '@/components/evals/eval-view';
import { getRuntime } from '@/server/runtime';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

type Params = { params: Promise<{ id: string }> };

export async function generateMetadata({ params }: Params): Promise<Metadata> {
  const { id } = await params;
  const record = await getRuntime().evals.get(id);
  return { title: record ? `Evaluation · ${record.suite}` : 'Evaluation not found' };
}

/** One evaluation, rendered from the store for the first paint; a running one then refreshes through `GET /api/evals/:id`. */
export default async function EvalPage({ params }: Params) {
  const { id } = await params;
  const record = await getRuntime().evals.get(id);
  if (!record) notFound();
  return <EvalView key={id} initial={toEvalDetail(record)} />;
}
