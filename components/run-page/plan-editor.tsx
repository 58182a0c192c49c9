'use client';

import { useId, useMemo, useState } from 'react';
import type { PlanProfile, Rejection } from '@/lib/events';
import { judgeGivenPlan, rulesOf, type PlanRulesInfo } from '@/lib/plan-judgement';
import { Code } from '../ui/panel';

type Step = Record<string, unknown>;
type EditedPlan = { goal?: string; steps: Step[] };

/** A plan being edited, judged as the engine judges a given plan: its JSON parsed, then the same schema and Validator (`judgeGivenPlan`). */
export interface JudgedPlan {
  parsed: ReturnType<typeof parseJson>;
  rejections: Rejection[];
  /** It parses and the Validator accepts it. */
  runnable: boolean;
}

export function useJudgedPlan(text: string, profile: PlanProfile, rules: PlanRulesInfo): JudgedPlan {
  return useMemo(() => {
    const parsed = parseJson(text);
    const rejections = parsed.ok ? judgeGivenPlan(profile, parsed.value, rulesOf(rules, profile)).rejections : [];
    return { parsed, rejections, runnable: parsed.ok && rejections.length === 0 };
  }, [text, profile, rules]);
}

/** A toggle button that shows when it is on. */
export const TOGGLE = 'btn aria-pressed:bg-zinc-200 aria-pressed:font-semibold dark:aria-pressed:bg-zinc-700';

/**
 * A plan's editor, shared by "Fork from here" and "Edit and approve": a row
 * per step in the profile's fields, or the JSON, both writing the same
 * text, with each rejection's code in place as the person types. `prefix`
 * names its test ids and element ids (`fork`, `approval`).
 */
export function PlanEditor({
  profile,
  rules,
  text,
  onText,
  judged,
  prefix,
}: {
  profile: PlanProfile;
  rules: PlanRulesInfo;
  text: string;
  onText: (text: string) => void;
  judged: JudgedPlan;
  prefix: string;
}) {
  const ids = useId();
  const [mode, setMode] = useState<'rows' | 'json'>('rows');
  const { parsed, rejections } = judged;
  const plan = parsed.ok && isEditable(parsed.value) ? parsed.value : null;
  const setPlan = (next: EditedPlan) => onText(JSON.stringify(next, null, 2));
  return (
    <div className="space-y-2">
      <div className="flex items-center gap-2">
        <Verdict parsed={parsed} rejections={rejections} prefix={prefix} />
        <div className="ml-auto flex gap-1" role="group" aria-label="Edit the plan as">
          <button type="button" className={TOGGLE} aria-pressed={mode === 'rows'} onClick={() => setMode('rows')}>
            Steps
          </button>
          <button type="button" className={TOGGLE} aria-pressed={mode === 'json'} onClick={() => setMode('json')} data-testid={`${prefix}-json-mode`}>
            JSON
          </button>
        </div>
      </div>
      {mode === 'json' || !plan ? (
        <div>
          <label htmlFor={`${ids}-json`} className="label">
            Plan JSON
          </label>
          <textarea
            id={`${ids}-json`}
            data-testid={`${prefix}-plan-json`}
            className="field min-h-64 font-mono text-xs"
            spellCheck={false}
            value={text}
            onChange={(e) => onText(e.target.value)}
          />
        </div>
      ) : (
        <StepRows plan={plan} profile={profile} rules={rules} rejections={rejections} onChange={setPlan} prefix={prefix} />
      )}
    </div>
  );
}

/** The plan's verdict as the run would record it: accepted, or each plan-level rejection with its code. */
function Verdict({ parsed, rejections, prefix }: { parsed: ReturnType<typeof parseJson>; rejections: Rejection[]; prefix: string }) {
  if (!parsed.ok) {
    return (
      <p role="status" className="text-xs text-red-900 dark:text-red-200" data-testid={`${prefix}-verdict`} data-verdict="invalid_json">
        <Code>schema_invalid</Code> The JSON does not parse: {parsed.message}
      </p>
    );
  }
  const planLevel = rejections.filter((r) => r.step === null);
  return (
    <div role="status" data-testid={`${prefix}-verdict`} data-verdict={rejections.length === 0 ? 'accepted' : 'rejected'} className="text-xs">
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
            <RejectionItem key={i} rejection={r} prefix={prefix} />
          ))}
        </ul>
      )}
    </div>
  );
}

export function RejectionItem({ rejection, prefix }: { rejection: Rejection; prefix: string }) {
  return (
    <li data-testid={`${prefix}-rejection`} data-code={rejection.code} className="text-xs text-red-900 dark:text-red-200">
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
  prefix,
}: {
  plan: EditedPlan;
  profile: PlanProfile;
  rules: PlanRulesInfo;
  rejections: Rejection[];
  onChange: (plan: EditedPlan) => void;
  prefix: string;
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
          <label className="label" htmlFor={`${prefix}-goal`}>
            Goal
          </label>
          <input id={`${prefix}-goal`} className="field" value={String(plan.goal ?? '')} onChange={(e) => onChange({ ...plan, goal: e.target.value })} />
        </div>
      )}
      <ol className="space-y-2">
        {plan.steps.map((step, index) => {
          const own = rejections.filter((r) => r.step === index);
          return (
            <li
              key={index}
              data-testid={`${prefix}-step-${index + 1}`}
              className={`rounded border p-2 ${own.length > 0 ? 'border-red-300 bg-red-50/60 dark:border-red-900 dark:bg-red-950/30' : 'border-zinc-200 dark:border-zinc-800'}`}
            >
              <div className="grid items-end gap-2 sm:grid-cols-[minmax(0,2fr)_minmax(0,3fr)_auto]">
                {profile === 'file' ? (
                  <TextField label={`Step ${index + 1} path`} value={step['path']} onChange={(path) => setStep(index, { path })} mono />
                ) : (
                  <GeneralStepFields step={step} index={index} rules={rules} onChange={(patch) => setStep(index, patch)} prefix={prefix} />
                )}
                <TextField label={`Step ${index + 1} purpose`} value={step['purpose']} onChange={(purpose) => setStep(index, { purpose })} />
                <button type="button" className="btn" onClick={() => remove(index)} aria-label={`Remove step ${index + 1}`}>
                  Remove
                </button>
              </div>
              {own.length > 0 && (
                <ul className="mt-1">
                  {own.map((r, i) => (
                    <RejectionItem key={i} rejection={r} prefix={prefix} />
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

function GeneralStepFields({ step, index, rules, onChange, prefix }: { step: Step; index: number; rules: PlanRulesInfo; onChange: (patch: Step) => void; prefix: string }) {
  const kind = step['kind'] === 'reason' ? 'reason' : 'tool';
  const id = `${prefix}-step-${index}-kind`;
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
