'use client';

import { useRouter } from 'next/navigation';
import { useId, useMemo, useState, useTransition } from 'react';
import type { ForkRunOutcome } from '@/lib/api';
import type { ErrorInfo } from '@/lib/codes';
import { PlanProfile, Strategy, type ForkStage, type Rejection } from '@/lib/events';
import { planOfRound } from '@/lib/fork-point';
import { judgeGivenPlan, rulesOf, type PlanRulesInfo } from '@/lib/plan-judgement';
import type { RoundView, RunState } from '@/lib/run-state';
import { useHealth } from '../start/use-health';
import { Drawer } from '../ui/drawer';
import { Code } from '../ui/panel';

/** What the run page gives the fork editor: the rules plans are judged by, the models to offer, and the action that starts a fork. */
export interface ForkSettings {
  rules: PlanRulesInfo;
  defaultModel: string;
  offlineModel: string;
  /** The most rounds a run may ask for. */
  maxRoundsLimit: number;
  forkRun: (request: unknown) => Promise<ForkRunOutcome>;
}

type Step = Record<string, unknown>;
type EditedPlan = { goal?: string; steps: Step[] };

/**
 * "Fork from here": a round's plan to edit (a row per step, or the JSON),
 * judged as the person types by the same schema and Validator the engine
 * uses (`judgeGivenPlan`), each rejection's code in place; the model,
 * strategy, profile and rounds of the fork; and the start, which goes to the
 * fork's page.
 */
export function ForkEditor({ runId, view, round, settings, onClose }: { runId: string; view: RunState; round: RoundView; settings: ForkSettings; onClose: () => void }) {
  const router = useRouter();
  const health = useHealth();
  const ids = useId();
  const [profile, setProfile] = useState<PlanProfile>(view.profile);
  const [text, setText] = useState(() => JSON.stringify(planOfRound(round, view.profile) ?? { steps: [] }, null, 2));
  const [mode, setMode] = useState<'rows' | 'json'>('rows');
  const [stage, setStage] = useState<ForkStage>('plan');
  const [model, setModel] = useState(view.model);
  const [strategy, setStrategy] = useState<Strategy>('plan-execute');
  const [maxRounds, setMaxRounds] = useState(String(Math.max(view.limits?.maxRounds ?? round.round, round.round)));
  const [refusal, setRefusal] = useState<{ error: ErrorInfo; rejections: Rejection[] } | null>(null);
  const [pending, startTransition] = useTransition();

  const parsed = useMemo(() => parseJson(text), [text]);
  const rejections = useMemo(
    () => (parsed.ok ? judgeGivenPlan(profile, parsed.value, rulesOf(settings.rules, profile)).rejections : []),
    [parsed, profile, settings.rules],
  );
  const plan = parsed.ok && isEditable(parsed.value) ? parsed.value : null;
  const setPlan = (next: EditedPlan) => setText(JSON.stringify(next, null, 2));
  const changeProfile = (next: PlanProfile) => {
    setProfile(next);
    setText(JSON.stringify(planOfRound(round, next) ?? { steps: [] }, null, 2));
  };

  const installed = health.data?.ollama.reachable ? health.data.ollama.models : [];
  const models = [...new Set([view.model, settings.defaultModel, ...installed, settings.offlineModel])];
  const planStage = stage === 'plan';
  const blocked = planStage && (!parsed.ok || rejections.length > 0);

  const start = () => {
    setRefusal(null);
    const request = planStage
      ? { fork: { run: runId, round: round.round, plan: parsed.ok ? parsed.value : null, stage }, model, profile, maxRounds }
      : { fork: { run: runId, stage }, model, strategy };
    startTransition(async () => {
      let outcome: ForkRunOutcome;
      try {
        outcome = await settings.forkRun(request);
      } catch (thrown) {
        outcome = { ok: false, error: { code: 'request_failed', message: thrown instanceof Error ? thrown.message : String(thrown) }, rejections: [] };
      }
      if (!outcome.ok) {
        setRefusal({ error: outcome.error, rejections: outcome.rejections });
        return;
      }
      const { id } = outcome;
      startTransition(() => router.push(`/runs/${encodeURIComponent(id)}`));
    });
  };

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
            <div className="flex items-center gap-2">
              <h3 id={`${ids}-plan`} className="text-xs font-semibold">
                Plan for round {round.round}
              </h3>
              <div className="ml-auto flex gap-1" role="group" aria-label="Edit the plan as">
                <button type="button" className="btn" aria-pressed={mode === 'rows'} onClick={() => setMode('rows')}>
                  Steps
                </button>
                <button type="button" className="btn" aria-pressed={mode === 'json'} onClick={() => setMode('json')} data-testid="fork-json-mode">
                  JSON
                </button>
              </div>
            </div>
            <Verdict parsed={parsed} rejections={rejections} />
            {mode === 'json' || !plan ? (
              <div>
                <label htmlFor={`${ids}-json`} className="label">
                  Plan JSON
                </label>
                <textarea
                  id={`${ids}-json`}
                  data-testid="fork-plan-json"
                  className="field min-h-64 font-mono text-xs"
                  spellCheck={false}
                  value={text}
                  onChange={(e) => setText(e.target.value)}
                />
              </div>
            ) : (
              <StepRows plan={plan} profile={profile} rules={settings.rules} rejections={rejections} onChange={setPlan} />
            )}
          </section>
        )}

        {refusal && (
          <div role="alert" data-testid="fork-refusal" className="rounded border border-red-300 bg-red-50 px-2.5 py-1.5 text-xs text-red-900 dark:border-red-800 dark:bg-red-950 dark:text-red-200">
            <Code>{refusal.error.code}</Code> <span className="break-anywhere">{refusal.error.message}</span>
            {refusal.rejections.length > 0 && (
              <ul className="mt-1">
                {refusal.rejections.map((r, i) => (
                  <RejectionItem key={i} rejection={r} />
                ))}
              </ul>
            )}
          </div>
        )}

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

function Field({ label, id, children }: { label: string; id: string; children: React.ReactNode }) {
  return (
    <div>
      <label htmlFor={id} className="label">
        {label}
      </label>
      {children}
    </div>
  );
}

/** The plan's verdict as the run would record it: accepted, or each plan-level rejection with its code. */
function Verdict({ parsed, rejections }: { parsed: ReturnType<typeof parseJson>; rejections: Rejection[] }) {
  if (!parsed.ok) {
    return (
      <p role="status" className="text-xs text-red-900 dark:text-red-200" data-testid="fork-verdict" data-verdict="invalid_json">
        <Code>schema_invalid</Code> The JSON does not parse: {parsed.message}
      </p>
    );
  }
  const planLevel = rejections.filter((r) => r.step === null);
  return (
    <div role="status" data-testid="fork-verdict" data-verdict={rejections.length === 0 ? 'accepted' : 'rejected'} className="text-xs">
      {rejections.length === 0 ? (
        <span className="text-emerald-800 dark:text-emerald-300">✓ The Validator accepts this plan.</span>
      ) : (
        <span className="text-red-900 dark:text-red-200">
          ✗ Rejected ({rejections.length}){planLevel.length > 0 ? ':' : ' — see the steps.'}
        </span>
      )}
      {planLevel.length > 0 && (
        <ul>
          {planLevel.map((r, i) => (
            <RejectionItem key={i} rejection={r} />
          ))}
        </ul>
      )}
    </div>
  );
}

function RejectionItem({ rejection }: { rejection: Rejection }) {
  return (
    <li data-testid="fork-rejection" data-code={rejection.code} className="text-xs text-red-900 dark:text-red-200">
      {rejection.step !== null && <span className="mr-1 muted">step {rejection.step + 1}</span>}
      <Code>{rejection.code}</Code> <span className="break-anywhere">{rejection.message}</span>
    </li>
  );
}

/** One row per step, in the profile's fields; a change writes the plan's JSON again, so both views hold the same plan. */
function StepRows({
  plan,
  profile,
  rules,
  rejections,
  onChange,
}: {
  plan: EditedPlan;
  profile: PlanProfile;
  rules: PlanRulesInfo;
  rejections: Rejection[];
  onChange: (plan: EditedPlan) => void;
}) {
  const setStep = (index: number, patch: Step) => onChange({ ...plan, steps: plan.steps.map((s, i) => (i === index ? { ...s, ...patch } : s)) });
  const remove = (index: number) => onChange({ ...plan, steps: plan.steps.filter((_, i) => i !== index) });
  const add = () => {
    const id = Math.max(0, ...plan.steps.map((s) => (typeof s['id'] === 'number' ? s['id'] : 0))) + 1;
    const step = profile === 'file' ? { purpose: '', path: '' } : { id, kind: 'tool', tool: rules.tools[0]?.qualified ?? '', args: {}, purpose: '', dependsOn: [] };
    onChange({ ...plan, steps: [...plan.steps, step] });
  };
  return (
    <div className="space-y-2">
      {profile === 'general' && (
        <div>
          <label className="label" htmlFor="fork-goal">
            Goal
          </label>
          <input id="fork-goal" className="field" value={String(plan.goal ?? '')} onChange={(e) => onChange({ ...plan, goal: e.target.value })} />
        </div>
      )}
      <ol className="space-y-2">
        {plan.steps.map((step, index) => {
          const own = rejections.filter((r) => r.step === index);
          return (
            <li
              key={index}
              data-testid={`fork-step-${index + 1}`}
              className={`rounded border p-2 ${own.length > 0 ? 'border-red-300 bg-red-50/60 dark:border-red-900 dark:bg-red-950/30' : 'border-zinc-200 dark:border-zinc-800'}`}
            >
              <div className="grid items-end gap-2 sm:grid-cols-[minmax(0,2fr)_minmax(0,3fr)_auto]">
                {profile === 'file' ? (
                  <TextField label={`Step ${index + 1} path`} value={step['path']} onChange={(path) => setStep(index, { path })} mono />
                ) : (
                  <GeneralStepFields step={step} index={index} rules={rules} onChange={(patch) => setStep(index, patch)} />
                )}
                <TextField label={`Step ${index + 1} purpose`} value={step['purpose']} onChange={(purpose) => setStep(index, { purpose })} />
                <button type="button" className="btn" onClick={() => remove(index)} aria-label={`Remove step ${index + 1}`}>
                  Remove
                </button>
              </div>
              {own.length > 0 && (
                <ul className="mt-1">
                  {own.map((r, i) => (
                    <RejectionItem key={i} rejection={r} />
                  ))}
                </ul>
              )}
            </li>
          );
        })}
      </ol>
      <button type="button" className="btn" onClick={add}>
        Add a step
      </button>
    </div>
  );
}

function GeneralStepFields({ step, index, rules, onChange }: { step: Step; index: number; rules: PlanRulesInfo; onChange: (patch: Step) => void }) {
  const kind = step['kind'] === 'reason' ? 'reason' : 'tool';
  const id = `fork-step-${index}-kind`;
  return (
    <div className="grid gap-2 sm:grid-cols-2">
      <div>
        <label className="label" htmlFor={id}>
          Step {index + 1} kind
        </label>
        <select
          id={id}
          className="field"
          value={kind}
          onChange={(e) =>
            onChange(e.target.value === 'reason' ? { kind: 'reason', tool: undefined, args: undefined } : { kind: 'tool', tool: rules.tools[0]?.qualified ?? '', args: {} })
          }
        >
          <option value="tool">tool call</option>
          <option value="reason">reasoning</option>
        </select>
      </div>
      {kind === 'tool' && (
        <>
          <div>
            <label className="label" htmlFor={`${id}-tool`}>
              Step {index + 1} tool
            </label>
            <select id={`${id}-tool`} className="field" value={String(step['tool'] ?? '')} onChange={(e) => onChange({ tool: e.target.value })}>
              {rules.tools.map((t) => (
                <option key={t.qualified} value={t.qualified}>
                  {t.qualified}
                </option>
              ))}
            </select>
          </div>
          <JsonField label={`Step ${index + 1} arguments (JSON)`} value={step['args'] ?? {}} onChange={(args) => onChange({ args })} />
        </>
      )}
      <TextField
        label={`Step ${index + 1} depends on (ids)`}
        value={Array.isArray(step['dependsOn']) ? step['dependsOn'].join(', ') : ''}
        onChange={(text) => onChange({ dependsOn: text.split(/[\s,]+/).filter(Boolean).map(Number) })}
      />
    </div>
  );
}

function TextField({ label, value, onChange, mono = false }: { label: string; value: unknown; onChange: (value: string) => void; mono?: boolean }) {
  const id = useId();
  return (
    <div className="min-w-0">
      <label className="label" htmlFor={id}>
        {label}
      </label>
      <input id={id} className={`field ${mono ? 'font-mono text-xs' : ''}`} value={typeof value === 'string' ? value : ''} onChange={(e) => onChange(e.target.value)} />
    </div>
  );
}

/** A JSON value typed as text: the plan changes once it parses; until then the text stays as typed, with why it does not parse. */
function JsonField({ label, value, onChange }: { label: string; value: unknown; onChange: (value: unknown) => void }) {
  const id = useId();
  const [draft, setDraft] = useState<string | null>(null);
  const parsed = draft === null ? null : parseJson(draft);
  return (
    <div className="min-w-0 sm:col-span-2">
      <label className="label" htmlFor={id}>
        {label}
      </label>
      <input
        id={id}
        className="field font-mono text-xs"
        value={draft ?? JSON.stringify(value)}
        aria-invalid={parsed?.ok === false}
        onChange={(e) => {
          const next = parseJson(e.target.value);
          setDraft(next.ok ? null : e.target.value);
          if (next.ok) onChange(next.value);
        }}
      />
      {parsed?.ok === false && <p className="text-[11px] text-red-800 dark:text-red-300">Not JSON yet: {parsed.message}</p>}
    </div>
  );
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false; message: string } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  }
}

/** A plan the rows can show: an object with a list of step objects (anything else is edited as JSON). */
function isEditable(value: unknown): value is EditedPlan {
  if (typeof value !== 'object' || value === null || !('steps' in value)) return false;
  const { steps } = value as { steps: unknown };
  return Array.isArray(steps) && steps.every((s) => typeof s === 'object' && s !== null && !Array.isArray(s));
}
