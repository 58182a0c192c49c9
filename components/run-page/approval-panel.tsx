'use client';

import { useId, useState, useTransition } from 'react';
import { MAX_NOTE_CHARS, type ApprovalBody } from '@/lib/approval';
import type { ApprovalOutcome } from '@/lib/api';
import type { ErrorInfo } from '@/lib/codes';
import type { Rejection } from '@/lib/events';
import { planOfRound } from '@/lib/fork-point';
import type { PlanRulesInfo } from '@/lib/plan-judgement';
import type { RoundView, RunState } from '@/lib/run-state';
import { Code } from '../ui/panel';
import { PlanEditor, TOGGLE, useJudgedPlan } from './plan-editor';
import { RefusalAlert } from './refusal-alert';

/** What the run page gives the approval panel: the rules an edited plan is judged by, and the action that records a decision. */
export interface ApprovalSettings {
  rules: PlanRulesInfo;
  decide: (runId: string, body: ApprovalBody) => Promise<ApprovalOutcome>;
}

/**
 * A run waiting for a person: the plan the Validator accepted, with
 * Approve, Edit and approve (the plan's editor, judged live by the same
 * schema and Validator), and Reject with a note for the planner.
 */
export function ApprovalPanel({
  runId,
  view,
  round,
  request,
  settings,
}: {
  runId: string;
  view: RunState;
  round: RoundView;
  request: string;
  settings: ApprovalSettings;
}) {
  const ids = useId();
  const [mode, setMode] = useState<'view' | 'edit' | 'reject'>('view');
  const [text, setText] = useState(() => JSON.stringify(planOfRound(round, view.profile) ?? { steps: [] }, null, 2));
  const [note, setNote] = useState('');
  const [refusal, setRefusal] = useState<{ error: ErrorInfo; rejections: Rejection[] } | null>(null);
  const [pending, startTransition] = useTransition();
  const judged = useJudgedPlan(text, view.profile, settings.rules);
  const steps = round.approval?.steps ?? [];

  const send = (body: ApprovalBody) => {
    setRefusal(null);
    startTransition(async () => {
      let outcome: ApprovalOutcome;
      try {
        outcome = await settings.decide(runId, body);
      } catch (thrown) {
        outcome = { ok: false, error: { code: 'request_failed', message: thrown instanceof Error ? thrown.message : String(thrown) }, rejections: [] };
      }
      if (!outcome.ok) setRefusal({ error: outcome.error, rejections: outcome.rejections });
    });
  };

  return (
    <section
      aria-labelledby={`${ids}-title`}
      data-testid="approval-panel"
      className="space-y-2 rounded border border-fuchsia-300 bg-fuchsia-50/50 p-3 dark:border-fuchsia-800 dark:bg-fuchsia-950/30"
    >
      <h2 id={`${ids}-title`} className="text-sm font-semibold">
        Round {round.round}&apos;s plan waits for your approval
      </h2>
      <p className="text-xs muted">The Validator accepted it; nothing of it runs until you decide.</p>
      {round.approval?.goal && <p className="text-xs">Goal: {round.approval.goal}</p>}
      <ol className="list-decimal space-y-0.5 pl-5 text-xs" data-testid="approval-steps">
        {steps.map((step, index) => (
          <li key={index}>
            <Code>{step.path}</Code> <span className="muted">{step.purpose}</span>
          </li>
        ))}
      </ol>

      <div className="flex flex-wrap gap-2">
        <button type="button" className="btn btn-primary" disabled={pending} onClick={() => send({ request, decision: 'approve' })} data-testid="approval-approve">
          Approve
        </button>
        <button type="button" className={TOGGLE} aria-pressed={mode === 'edit'} onClick={() => setMode(mode === 'edit' ? 'view' : 'edit')} data-testid="approval-edit">
          Edit and approve
        </button>
        <button type="button" className={TOGGLE} aria-pressed={mode === 'reject'} onClick={() => setMode(mode === 'reject' ? 'view' : 'reject')} data-testid="approval-reject">
          Reject
        </button>
      </div>

      {mode === 'edit' && (
        <div className="space-y-2">
          <PlanEditor profile={view.profile} rules={settings.rules} text={text} onText={setText} judged={judged} prefix="approval" />
          <button
            type="button"
            className="btn btn-primary"
            disabled={pending || !judged.runnable}
            onClick={() => judged.parsed.ok && send({ request, decision: 'edit_and_approve', plan: judged.parsed.value as object })}
            data-testid="approval-submit-edit"
          >
            Approve the edited plan
          </button>
        </div>
      )}

      {mode === 'reject' && (
        <div className="space-y-2">
          <label htmlFor={`${ids}-note`} className="label">
            Note for the planner (why, and what to do instead)
          </label>
          <textarea
            id={`${ids}-note`}
            className="field min-h-20 text-xs"
            maxLength={MAX_NOTE_CHARS}
            value={note}
            onChange={(e) => setNote(e.target.value)}
            data-testid="approval-note"
          />
          <button
            type="button"
            className="btn"
            disabled={pending || note.trim() === ''}
            onClick={() => send({ request, decision: 'reject', note })}
            data-testid="approval-submit-reject"
          >
            Reject with this note
          </button>
        </div>
      )}

      {refusal && <RefusalAlert refusal={refusal} prefix="approval" />}
    </section>
  );
}
