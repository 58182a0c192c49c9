'use client';

import { useMay } from '../identity';
import dynamic from 'next/dynamic';
import { useCallback, useMemo, useState } from 'react';
import type { RunImport } from '@/lib/bundle';
import type { CheckedCitation } from '@/lib/checker';
import type { RunEvent } from '@/lib/events';
import { checkPlanPath, SHAPE_ONLY_POLICY } from '@/lib/policy';
import { isTerminal, pendingApproval, roundLimit, roundNoun, roundOf } from '@/lib/run-state';
import { prefersReducedMotion } from '../keyboard/use-shortcuts';
import { useGiveVerdict } from '../human-verdicts/give-verdict';
import type { RunSummary } from '@/lib/api';
import type { RoundView, RunState } from '@/lib/run-state';
import { AnswerPanel, type Judging } from './answer-panel';
import type { ApprovalSettings } from './approval-panel';
import type { ForkSettings } from './fork-editor';
import { ForkLineage } from './fork-lineage';
import { ResumeNote } from './resume-note';
import type { LineRange } from './file-lines';
import { LlmCallDrawer } from './llm-call-drawer';
import { LlmCallTable } from './llm-call-table';
import { ObservationViewer, type ObservationSelection } from './observation-viewer';
import { OutcomeHeader } from './outcome-header';
import { SaveCase } from './save-case';
import { PlanRounds } from './plan-rounds';
import { RunAnnouncer } from './run-announcer';
import { useRunPageKeys } from './run-keys';
import { shownRounds } from './round-verdict';
import { StepTimeline } from './step-timeline';
import type { TextHead } from './text-head';
import { useRunEvents } from './use-run-events';

// Shown only while a plan waits for a person or a round is being forked: loaded then, not with every run page.
const ApprovalPanel = dynamic(() => import('./approval-panel').then((m) => m.ApprovalPanel));
const ForkEditor = dynamic(() => import('./fork-editor').then((m) => m.ForkEditor));

/**
 * The run page: one fold of the run's events (`useRunEvents`), rendered as
 * the pipeline runs: plans, steps, observations, answer, and the LLM calls
 * underneath. The only state kept here is what the person is looking at.
 * The panels are memoised and the fold shares what an event did not change,
 * so an event re-renders only the panels that show what it changed.
 * Keys: `j`/`k` through rounds and steps, `[`/`]` through claims, and a
 * citation (Enter or click) moves focus to the lines it cites.
 */
export function RunView({
  runId,
  initialEvents,
  head,
  traceUrl = null,
  imported = null,
  person,
  fork = null,
  forks = [],
  approval = null,
}: {
  runId: string;
  initialEvents: RunEvent[];
  head: TextHead | null;
  traceUrl?: string | null;
  /** Where and when the run was imported from a bundle; null for a run recorded here. */
  imported?: RunImport | null;
  /** Who this page's verdicts are given as: the token's name, or `local`. */
  person: string;
  /** What forking this run needs; null where it cannot be forked from the page. */
  fork?: ForkSettings | null;
  /** The runs forked from this one, newest first. */
  forks?: RunSummary[];
  /** What deciding on a waiting plan needs; null where it cannot be decided from the page. */
  approval?: ApprovalSettings | null;
}) {
  const mayMakeCases = useMay('reviewer');
  const { view, connection, streamError, fold } = useRunEvents(runId, initialEvents);
  const verdict = useGiveVerdict(runId, fold);
  const [selection, setSelection] = useState<ObservationSelection | null>(null);
  const [openCall, setOpenCall] = useState<string | null>(null);
  const [replaying, setReplaying] = useState(false);
  const openLlmCall = useCallback((name: string, replay = false) => {
    setOpenCall(name);
    setReplaying(replay);
  }, []);
  const [forkRound, setForkRound] = useState<RoundView | null>(null);
  const live = !isTerminal(view.status);
  const waiting = pendingApproval(view);
  const waitingRound = waiting ? (roundOf(view, waiting.round) ?? null) : null;
  const observed = useMemo(() => new Set(Object.keys(view.observations)), [view.observations]);
  // What the Result says of each round is what the page shows: recomputed only when something it reads changed.
  const { rounds, status, llmCalls, error, answer, strategy } = view;
  const shown = useMemo(() => shownRounds({ rounds, status, llmCalls, error, answer, strategy }), [rounds, status, llmCalls, error, answer, strategy]);
  const noun = roundNoun(view.strategy);
  useRunPageKeys();

  const openObservation = useCallback((path: string, range: LineRange | null = null, focus = false) => {
    setSelection((prev) => ({ path, range, focus, nonce: (prev?.nonce ?? 0) + 1 }));
  }, []);

  const openCitation = useCallback(
    (c: CheckedCitation) => {
      // The checker looked the path up in its normalised form; so does the viewer.
      const verdict = checkPlanPath(c.path, SHAPE_ONLY_POLICY);
      const path = verdict.ok ? verdict.path : c.path;
      openObservation(path, { startLine: c.startLine, endLine: Math.max(c.endLine, c.startLine) }, true);
      document.getElementById('observations')?.scrollIntoView({ block: 'nearest', behavior: prefersReducedMotion() ? 'auto' : 'smooth' });
    },
    [openObservation],
  );

  const call = openCall === null ? null : (view.llmCalls.find((c) => c.call === openCall) ?? null);
  // People judge an answer once the run has ended, as the server accepts verdicts only then.
  const judging = useMemo<Judging | null>(
    () => (live || view.answer === null ? null : { person, verdicts: view.humanVerdicts, verdict }),
    [live, view.answer, view.humanVerdicts, person, verdict],
  );

  return (
    <div className="space-y-3">
      <RunAnnouncer view={view} />
      <OutcomeHeader runId={runId} view={view} connection={connection} traceUrl={traceUrl} imported={imported} />
      <ForkLineage runId={runId} forkedFrom={view.forkedFrom} claimedForkedFrom={view.imported?.claimedForkedFrom ?? null} forks={forks} />
      <ResumeNote resumes={view.resumes} />
      {!live && view.answer !== null && mayMakeCases && (
        <div>
          <SaveCase runId={runId} view={view} />
        </div>
      )}
      {streamError && (
        <p role="status" className="rounded border border-amber-300 bg-amber-50 px-3 py-1.5 text-xs text-amber-900 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-200">
          {streamError}
        </p>
      )}

      {approval && waiting && waitingRound && (
        <ApprovalPanel key={waiting.request} runId={runId} view={view} round={waitingRound} request={waiting.request} settings={approval} />
      )}
      {!approval && waiting && waitingRound && (
        <p className="text-sm text-amber-800 dark:text-amber-300" data-testid="approval-not-yours">
          Round {waitingRound.round}&apos;s plan waits for a decision by someone who may approve plans here.
        </p>
      )}
      <PlanRounds
        rounds={shown}
        calls={view.llmCalls}
        noun={noun}
        limit={roundLimit(view)}
        runLive={live}
        emptyNote={answerStageFork(view)}
        onOpenCall={openLlmCall}
        {...(fork && { onFork: setForkRound })}
      />
      {fork && forkRound && <ForkEditor runId={runId} view={view} round={forkRound} settings={fork} onClose={() => setForkRound(null)} />}

      <div className="grid items-start gap-3 lg:grid-cols-[minmax(0,5fr)_minmax(0,6fr)]">
        <div className="min-w-0 space-y-3">
          <AnswerPanel
            answer={view.answer}
            check={view.check}
            review={view.review}
            runLive={live}
            baseline={view.baseline}
            judging={judging}
            onOpenCitation={openCitation}
            onOpenCall={openLlmCall}
          />
          <StepTimeline rounds={shown} noun={noun} runLive={live} observed={observed} onOpenObservation={openObservation} />
        </div>
        <div className={`min-w-0 lg:sticky lg:top-14 ${observed.size > 0 ? 'lg:h-[calc(100dvh-4.5rem)]' : ''}`}>
          <ObservationViewer
            runId={runId}
            observations={view.observations}
            rounds={view.rounds}
            selection={selection}
            onSelect={openObservation}
            runLive={live}
            head={head}
          />
        </div>
      </div>

      <LlmCallTable calls={view.llmCalls} onOpenCall={openLlmCall} />
      <LlmCallDrawer runId={runId} call={call} replaying={replaying} onReplayingChange={setReplaying} onClose={() => setOpenCall(null)} forkRun={fork?.forkRun ?? null} />
    </div>
  );
}

/** A fork at the answer stage plans no round: say what it is, not that its planner proposed nothing. */
function answerStageFork(view: RunState): string | null {
  if (view.forkedFrom?.stage !== 'answer') return null;
  const reads = view.carried?.observations.length ?? 0;
  return `A fork at the answer: it plans and reads nothing itself, and answers again from the ${reads} ${reads === 1 ? 'observation' : 'observations'} it carried from run ${view.forkedFrom.run}.`;
}
