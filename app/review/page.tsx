import type { Metadata } from 'next';
import { ReviewQueue } from '@/components/review/review-queue';
import { toRunSummary } from '@/lib/api';
import { parseRunFilter } from '@/lib/run-filter';
import { requestIdentity } from '@/server/http/identity';
import { getRuntime } from '@/server/runtime';

export const metadata: Metadata = { title: 'Review queue' };
export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

/** Runs the queue holds at most: the newest that need review. */
const QUEUE_SIZE = 200;

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

/**
 * The completed runs still this person's to review, newest first: fewer
 * than PLANSCOPE_REVIEWERS_PER_RUN people have judged them, and not this
 * person. Walked through one after another, blind unless `?blind=0`. The
 * runs list's filters (`?model=`, `?q=`, ...) narrow the queue, so a person
 * can review one model's runs or one task's; one that does not parse is
 * ignored, and its review filter is the queue's own.
 */
export default async function ReviewPage({ searchParams }: Props) {
  const { store, config } = getRuntime();
  const params = await searchParams;
  const blind = params.blind !== '0';
  const given = new URLSearchParams(Object.entries(params).flatMap(([k, v]) => (typeof v === 'string' ? [[k, v]] : [])));
  const parsed = parseRunFilter(given);
  const { review: _queueOwn, ...narrowed } = parsed.ok ? parsed.filter : {};
  const { person } = await requestIdentity();
  const reviewers = config.reviewersPerRun;
  const rows = await store.listRuns({ limit: QUEUE_SIZE, filter: narrowed, reviewQueue: { person, reviewers } });
  return (
    <div className="space-y-3">
      <div>
        <h1 className="text-base font-semibold">Review queue</h1>
        <p className="mt-0.5 text-xs muted">
          Completed runs that are yours to review, newest first: each goes to {reviewers} {reviewers === 1 ? 'person' : 'people'}, and leaves the
          queue once that many have judged it. Mark each claim, and the answer as a whole, correct, incorrect or unsure: your verdicts stand
          beside the Checker&apos;s, the Reviewer&apos;s and other people&apos;s, and the Agreement page measures how often they agree. Keys:{' '}
          <kbd className="kbd">n</kbd> / <kbd className="kbd">p</kbd> next / previous run, <kbd className="kbd">j</kbd> /{' '}
          <kbd className="kbd">k</kbd> next / previous claim, <kbd className="kbd">c</kbd> <kbd className="kbd">i</kbd>{' '}
          <kbd className="kbd">u</kbd> correct, incorrect, unsure.
        </p>
      </div>
      <ReviewQueue queue={rows.map(toRunSummary)} person={person} blind={blind} reviewers={reviewers} />
    </div>
  );
}
