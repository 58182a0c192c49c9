import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { RunView } from '@/components/run/run-view';
import { getRuntime } from '@/server/runtime';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

type Params = { params: Promise<{ id: string }> };

export async function generateMetadata({ params }: Params): Promise<Metadata> {
  const { id } = await params;
  const run = getRuntime().store.getRun(id);
  if (!run) return { title: 'Run not found' };
  const task = run.task.length > 60 ? `${run.task.slice(0, 57)}…` : run.task;
  return { title: `${run.status} · ${task}` };
}

/**
 * The run page: the stored events are folded on the server for the first
 * paint, then the browser tails the rest over SSE from the last sequence
 * number it has (the same fold, the same code path as a reload).
 */
export default async function RunPage({ params }: Params) {
  const { id } = await params;
  const { store } = getRuntime();
  if (!store.getRun(id)) notFound();
  const events = store.events(id, 0);
  return <RunView key={id} runId={id} initialEvents={events} />;
}
