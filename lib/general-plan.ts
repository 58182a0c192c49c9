import { z } from 'zod';
import type { McpTool } from './api';
import { ReasonedStatus, type ProposedStep, type Rejection } from './events';
import type { PlanLimits } from './plan';
import { firstIssue, structuredOutput } from './structured';
import { DEFAULT_PATH_POLICY, type PathPolicy } from './policy';
import { checkToolArgs } from './tool-args';
import type { PlanVerdict } from './validator';

/**
 * The general plan profile (docs/architecture.md, plan profiles): a goal and
 * numbered steps, each either a call of a tool offered by a connected MCP
 * server or a reasoning step the model carries out, with `dependsOn` naming
 * earlier steps it needs. The JSON Schema sent to the model is generated from
 * the tools actually connected, so it can only name tools that exist.
 */

/**
 * A tool as plans see it: the qualified name (`server.tool`), its
 * description, its declared input schema, and whether its server marks it
 * read-only (only then is a completed call reused instead of made again).
 */
export type ToolSpec = Pick<McpTool, 'qualified' | 'description' | 'inputSchema' | 'readOnly'>;

/** The built-in workspace bridge's tools, as every general plan can use them. */
export const READ_FILE_TOOL = 'workspace.read_file';
export const LIST_FILES_TOOL = 'workspace.list_files';

const MAX_STEP_ID = 99;

function common(limits: PlanLimits) {
  return {
    id: z.int().min(1).max(MAX_STEP_ID),
    purpose: z.string().min(1).max(limits.maxPurposeChars),
    dependsOn: z.array(z.int().min(1).max(MAX_STEP_ID)).max(limits.maxSteps),
  };
}

/** Builds a zod validator from a tool's declared JSON Schema; a schema zod cannot read accepts any object. */
export function toolArgsSchema(tool: ToolSpec): z.ZodType<Record<string, unknown>> {
  try {
    return z.fromJSONSchema(tool.inputSchema) as z.ZodType<Record<string, unknown>>;
  } catch {
    return z.record(z.string(), z.unknown());
  }
}

/** The strict schema: sent as `format`, one branch per connected tool plus the reasoning step. */
export function generalPlanSchema(tools: readonly ToolSpec[], limits: PlanLimits) {
  const toolSteps = tools.map((tool) =>
    z.strictObject({ ...common(limits), kind: z.literal('tool'), tool: z.literal(tool.qualified), args: toolArgsSchema(tool) }),
  );
  const reasonStep = z.strictObject({ ...common(limits), kind: z.literal('reason') });
  return z.strictObject({
    goal: z.string().min(1).max(limits.maxPurposeChars),
    steps: z.array(z.union([reasonStep, ...toolSteps])).min(1).max(limits.maxSteps),
  });
}

export function generalPlanJsonSchema(tools: readonly ToolSpec[], limits: PlanLimits): Record<string, unknown> {
  return z.toJSONSchema(generalPlanSchema(tools, limits)) as Record<string, unknown>;
}

/**
 * The shape a reply is parsed with: the same fields, with the tool a plain
 * string and its arguments any object, so that a tool that does not exist or
 * arguments that break its schema are reported per step, with their own
 * codes, by `validateGeneralPlan`.
 */
export function generalPlanShape(limits: PlanLimits) {
  const { id, purpose } = common(limits);
  return z.strictObject({
    goal: z.string().min(1).max(limits.maxPurposeChars),
    steps: z
      .array(
        z.strictObject({
          id,
          purpose,
          dependsOn: z.array(z.int()).max(limits.maxSteps).default([]),
          kind: z.enum(['tool', 'reason']),
          tool: z.string().max(200).optional(),
          args: z.record(z.string(), z.unknown()).optional(),
        }),
      )
      .min(1)
      .max(limits.maxSteps),
  });
}
export type GeneralPlan = z.infer<ReturnType<typeof generalPlanShape>>;

/**
 * The Validator for general plans: unique ids, dependencies on earlier steps
 * only (so the plan is a DAG), tools that are offered, arguments that meet
 * the tool's schema, the path policy on every string of the arguments that
 * can name a file (lib/tool-args.ts), and no file read twice. `notOffered`
 * names tools a server has but plans may not use, with the reason, so a plan
 * that names one anyway is told why.
 */
export function validateGeneralPlan(
  plan: GeneralPlan,
  tools: readonly ToolSpec[],
  notOffered: ReadonlyMap<string, string> = new Map(),
  policy: PathPolicy = DEFAULT_PATH_POLICY,
): PlanVerdict {
  const byName = new Map(tools.map((t) => [t.qualified, t]));
  const rejections: Rejection[] = [];
  const seenIds = new Set<number>();
  const readPaths = new Map<string, number>();
  const steps = plan.steps.map((step, index): ProposedStep => {
    const reject = (code: Rejection['code'], message: string) => rejections.push({ step: index, code, message });
    if (seenIds.has(step.id)) reject('schema_invalid', `Step id ${step.id} is used twice.`);
    const unknownDeps = step.dependsOn.filter((d) => !seenIds.has(d));
    if (unknownDeps.length > 0) {
      reject('schema_invalid', `Step ${step.id} depends on ${unknownDeps.join(', ')}, which is not an earlier step.`);
    }
    seenIds.add(step.id);
    const base = { id: step.id, purpose: step.purpose, dependsOn: step.dependsOn };
    if (step.kind === 'reason') {
      if (step.tool !== undefined || step.args !== undefined) reject('schema_invalid', `Reasoning step ${step.id} names a tool.`);
      return { ...base, kind: 'reason', path: `reason #${step.id}` };
    }
    const tool = step.tool === undefined ? undefined : byName.get(step.tool);
    if (!tool) {
      const refused = step.tool === undefined ? undefined : notOffered.get(step.tool);
      reject(
        'unsupported_step',
        refused !== undefined
          ? `The tool "${step.tool}" is not offered to plans: ${refused}.`
          : step.tool
            ? `No connected MCP server offers the tool "${step.tool}".`
            : `Step ${step.id} names no tool.`,
      );
      return { ...base, kind: 'tool', tool: step.tool ?? '', args: step.args ?? {}, path: step.tool ?? '' };
    }
    const parsedArgs = toolArgsSchema(tool).safeParse(step.args ?? {});
    if (!parsedArgs.success) {
      reject('schema_invalid', `Arguments of ${tool.qualified} do not match its schema: ${firstIssue(parsedArgs.error, '(root)')}`);
      return { ...base, kind: 'tool', tool: tool.qualified, args: step.args ?? {}, path: tool.qualified };
    }
    // A read names exactly one file; other tools may name folders (`list {path: "."}`).
    const checked = checkToolArgs(parsedArgs.data, tool.inputSchema, { directories: tool.qualified !== READ_FILE_TOOL, policy });
    for (const r of checked.rejections) reject(r.code, `Step ${step.id}, ${tool.qualified} ${r.message}`);
    const { args } = checked;
    if (tool.qualified === READ_FILE_TOOL && typeof args['path'] === 'string') {
      const first = readPaths.get(args['path']);
      if (first !== undefined) reject('duplicate_path', `Step ${step.id} reads ${args['path']} again (step ${first} already does).`);
      else readPaths.set(args['path'], step.id);
    }
    return { ...base, kind: 'tool', tool: tool.qualified, args, path: stepTarget(tool.qualified, args) };
  });
  return { steps, rejections };
}

/**
 * What a step is about, in one short label: the file for a read, otherwise
 * the tool and its arguments. It keys the step's observation.
 */
export function stepTarget(tool: string, args: Record<string, unknown>): string {
  if (tool === READ_FILE_TOOL && typeof args['path'] === 'string') return args['path'];
  const shown = Object.entries(args)
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' ')
    .replace(/[\u0000-\u001f\\:]/g, ' ');
  const label = shown ? `${tool} ${shown}` : tool;
  return label.length > 120 ? `${label.slice(0, 119)}…` : label;
}

/** The outcome a reasoning step returns: explicit status, no keyword matching on the text. */
export const ReasoningOutcome = z.strictObject({
  status: ReasonedStatus,
  result: z.string().max(4000),
  reason: z.string().max(1000),
});
export type ReasoningOutcome = z.infer<typeof ReasoningOutcome>;

export const { jsonSchema: reasoningJsonSchema, parse: parseReasoning } = structuredOutput(ReasoningOutcome, 'a step outcome');
