'use client';

import { useId, useState } from 'react';
import type { ForkRunOutcome } from '@/lib/api';
import { PlanProfile, Strategy, type ForkStage } from '@/lib/events';
import { planOfRound } from '@/lib/fork-point';
import type { PlanRulesInfo } from '@/lib/plan-judgement';
import type { RoundView, RunState } from '@/lib/run-state';
import { useHealth } from '../start/use-health';
import { Drawer } from '../ui/drawer';
import { Field } from '../ui/field';
import { PlanEditor, useJudgedPlan } from './plan-editor';
import { RefusalAlert } from './refusal-alert';
import { useStartFork } from './use-start-fork';

/** What the run page gives the fork editor: the rules plans are judged by, the models to offer, and the action that starts a fork. */
export interface ForkSettings {
  rules: PlanRulesInfo;
  defaultModel: string;
  offlineModel: string;
  /** The most rounds a run may ask for. */
  maxRoundsLimit: number;
  forkRun: (request: unknown) => Promise<ForkRunOutcome>;
}

/**
 * "Fork from here": a round's plan to edit (a row per step, or the JSON),
 * judged as the person types by the same schema and Validator the engine
 * uses (`judgeGivenPlan`), each rejection's code in place; the model,
 * strategy, profile and rounds of the fork; and the start, which goes to the
 * fork's page.
 */
export function ForkEditor({ runId, view, round, settings, onClose }: { runId: string; view: RunState; round: RoundView; settings: ForkSettings; onClose: () => void }) {
  const health = useHealth();
  const ids = useId();
  const [profile, setProfile] = useState<PlanProfile>(view.profile);
  const [text, setText] = useState(() => JSON.stringify(planOfRound(round, view.profile) ?? { steps: [] }, null, 2));
  const [stage, setStage] = useState<ForkStage>('plan');
  const [model, setModel] = useState(view.model);
  const [strategy, setStrategy] = useState<Strategy>('plan-execute');
  const [maxRounds, setMaxRounds] = useState(String(Math.max(view.limits?.maxRounds ?? round.round, round.round)));
  const { start: startFork, pending, refusal } = useStartFork(settings.forkRun);

  const judged = useJudgedPlan(text, profile, settings.rules);
  const { parsed } = judged;
  const changeProfile = (next: PlanProfile) => {
    setProfile(next);
    setText(JSON.stringify(planOfRound(round, next) ?? { steps: [] }, null, 2));
  };

  const installed = health.data?.ollama.reachable ? health.data.ollama.models : [];
  const models = [...new Set([view.model, settings.defaultModel, ...installed, settings.offlineModel])];
  const planStage = stage === 'plan';
  const blocked = planStage && !judged.runnable;

  const start = () =>
    startFork(
      planStage
        ? { fork: { run: runId, round: round.round, plan: parsed.ok ? parsed.value : null, stage }, model, profile, maxRounds }
        : { fork: { run: runId, stage }, model, strategy },
    );

  return (
    <Drawer
      open
      onClose={onClose}
      testId="fork-editor"
      title={
        <h2 className="text-sm font-semibold">
          Fork from round {round.round} <span className="font-normal muted">of run {runId}</span>
        </h2>
      }
    >
      <div className="space-y-3 p-4 text-sm">
        <fieldset className="flex flex-wrap gap-x-4 gap-y-1">
          <legend className="label">Start the fork</legend>
          <label className="flex items-center gap-1.5 text-xs">
            <input type="radio" name={`${ids}-stage`} checked={planStage} onChange={() => setStage('plan')} />
            at round {round.round}, with the plan below
          </label>
          <label className="flex items-center gap-1.5 text-xs">
            <input type="radio" name={`${ids}-stage`} checked={!planStage} onChange={() => setStage('answer')} data-testid="fork-stage-answer" />
            at the answer: the same observations, answered again
          </label>
        </fieldset>

        <div className="grid gap-3 sm:grid-cols-4">
          <Field label="Model" id={`${ids}-model`}>
            <select id={`${ids}-model`} className="field" value={model} onChange={(e) => setModel(e.target.value)} data-testid="fork-model">
              {models.map((m) => (
                <option key={m} value={m}>
                  {m === settings.offlineModel ? 'offline baseline (no LLM)' : m}
                </option>
              ))}
            </select>
          </Field>
          <Field label="Strategy" id={`${ids}-strategy`}>
            <select
              id={`${ids}-strategy`}
              className="field"
              value={planStage ? 'plan-execute' : strategy}
              disabled={planStage}
              onChange={(e) => setStrategy(Strategy.parse(e.target.value))}
            >
              {Strategy.options.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </select>
          </Field>
          <Field label="Profile" id={`${ids}-profile`}>
            <select id={`${ids}-profile`} className="field" value={profile} disabled={!planStage} onChange={(e) => changeProfile(PlanProfile.parse(e.target.value))}>
              {PlanProfile.options.map((p) => (
                <option key={p} value={p}>
                  {p}
                </option>
              ))}
            </select>
          </Field>
          <Field label="Max rounds" id={`${ids}-rounds`}>
            <input
              id={`${ids}-rounds`}
              className="field"
              type="number"
              min={round.round}
              max={settings.maxRoundsLimit}
              value={maxRounds}
              disabled={!planStage}
              onChange={(e) => setMaxRounds(e.target.value)}
            />
          </Field>
        </div>
        {planStage && <p className="text-[11px] muted">A fork from a plan goes on by plan-and-execute; fork the answer to try the other strategy&apos;s synthesis.</p>}

        {planStage && (
          <section aria-labelledby={`${ids}-plan`} className="space-y-2">
            <h3 id={`${ids}-plan`} className="text-xs font-semibold">
              Plan for round {round.round}
            </h3>
            <PlanEditor profile={profile} rules={settings.rules} text={text} onText={setText} judged={judged} prefix="fork" />
          </section>
        )}

        {refusal && <RefusalAlert refusal={refusal} prefix="fork" />}

        <div className="flex items-center gap-2">
          <button type="button" className="btn btn-primary" disabled={blocked || pending} onClick={start} data-testid="fork-start">
            {pending ? 'Starting…' : 'Start fork'}
          </button>
          {blocked && <span className="text-xs text-red-800 dark:text-red-300">Fix the plan first: the Validator would reject it.</span>}
        </div>
      </div>
    </Drawer>
  );
}

