import type { Attributes } from '@opentelemetry/api';
import type { EventOf, ProposedStep } from '../../lib/events';
import { READ_FILE_TOOL } from '../../lib/general-plan';
import { maskUrlsInText } from '../../lib/mask';
import { GenAi, GenAiOperation, General, Mcp, Planscope } from './conventions';
import { roundOf, type RunTrace, type SpanEmitter } from './span-emitter';
import { spanKey } from './trace-context';

/** A round's plan as the Validator judged it, and its steps: MCP tool calls, reused observations, reasoning. */

export function verdictSpan(out: SpanEmitter, run: RunTrace, event: EventOf<'plan_rejected'> | EventOf<'plan_accepted'>): void {
  const state = roundOf(run, event.round, event.at);
  const rejected = event.type === 'plan_rejected';
  if (!rejected) state.accepted = event.steps;
  const steps = rejected ? state.proposed : event.steps;
  const verdict = rejected ? 'rejected' : 'accepted';
  state.attributes[Planscope.verdict] = verdict;
  if (steps) state.attributes[Planscope.planSteps] = steps.length;
  const rejections = rejected ? event.rejections : [];
  out.emit(run, {
    parentKey: spanKey.round(event.round),
    name: Planscope.validateSpan,
    start: Math.min(state.planReplyAt ?? event.at, event.at),
    end: event.at,
    attributes: {
      [Planscope.round]: event.round,
      [Planscope.verdict]: verdict,
      [Planscope.rejections]: rejections.length,
      ...(steps && { [Planscope.planSteps]: steps.length }),
    },
    events: rejections.map((r) => ({
      name: Planscope.rejectionEvent,
      at: event.at,
      attributes: {
        [Planscope.rejectionCode]: r.code,
        ...(r.step !== null && { [Planscope.rejectionStep]: r.step }),
        // The message quotes the plan, and a rejected path is whatever the model wrote.
        ...(out.options.captureContent && { [Planscope.rejectionMessage]: maskUrlsInText(r.message) }),
        ...(out.options.captureContent &&
          r.step !== null &&
          state.proposed?.[r.step] && { [Planscope.rejectionPath]: maskUrlsInText(state.proposed[r.step]!.path) }),
      },
    })),
  });
}

export function stepSpan(
  out: SpanEmitter,
  run: RunTrace,
  event: EventOf<'step_cached'> | EventOf<'step_finished'> | EventOf<'step_failed'> | EventOf<'step_reasoned'>,
): void {
  const key = spanKey.step(event.round, event.index);
  const start = run.steps.get(key) ?? event.at;
  run.steps.delete(key);
  const step = run.rounds.get(event.round)?.accepted?.[event.index];
  const base = { key, parentKey: spanKey.round(event.round), start, end: event.at };
  const common: Attributes = { [Planscope.round]: event.round, [Planscope.stepIndex]: event.index };
  if (event.type === 'step_reasoned') {
    out.emit(run, {
      ...base,
      name: Planscope.reasonSpan,
      attributes: { ...common, [Planscope.reasoningStatus]: event.status },
      error: event.status === 'failed' ? { code: 'reasoning_failed', message: event.reason } : null,
    });
    return;
  }
  // A read's path passed the path policy; another tool's step is named by its arguments, which the model wrote.
  if (out.options.captureContent || isFileRead(run.created.profile, step)) common[Planscope.stepPath] = maskUrlsInText(event.path);
  if (event.readAhead) common[Planscope.readAhead] = true;
  if (event.type === 'step_cached') {
    out.emit(run, {
      ...base,
      name: Planscope.cacheReuseSpan,
      attributes: { ...common, [Planscope.cacheFromRound]: event.fromRound, [Planscope.observationSha256]: event.sha256 },
    });
    return;
  }
  const tool = toolOf(run.created.profile, step);
  const attributes: Attributes = {
    ...common,
    [GenAi.operationName]: GenAiOperation.executeTool,
    [GenAi.toolName]: tool.name,
    // Run by planscope itself, through its MCP client: the model only proposed it.
    [GenAi.toolType]: 'extension',
    [GenAi.toolCallId]: `${event.round}.${event.index}`,
    [Mcp.methodName]: Mcp.toolsCall,
    ...(tool.workspace && { [General.networkTransport]: General.transportPipe }),
  };
  if (event.type === 'step_finished') {
    attributes[Planscope.observationSha256] = event.observation.sha256;
    attributes[Planscope.observationBytes] = event.observation.bytes;
  }
  if (out.options.captureContent) attributes[GenAi.toolCallArguments] = maskUrlsInText(JSON.stringify(step?.args ?? { path: event.path }));
  const artifact = out.options.captureContent && event.type === 'step_finished' ? event.observation.artifact : null;
  const content =
    artifact === null
      ? null
      : async (): Promise<Attributes> => {
          const result = await out.content(run, artifact);
          return result === null ? {} : { [GenAi.toolCallResult]: result };
        };
  out.emitWith(run, content, {
    ...base,
    name: `${GenAiOperation.executeTool} ${tool.name}`,
    attributes,
    error: event.type === 'step_failed' ? { code: event.code, message: event.message } : null,
  });
}

/** Whether a step reads one workspace file, so that its target is a path the policy accepted. */
function isFileRead(profile: 'file' | 'general', step: ProposedStep | undefined): boolean {
  return profile === 'file' || step?.tool === READ_FILE_TOOL;
}

/** What a step's tool is called, and whether it is the workspace bridge's (spoken to over stdio). */
function toolOf(profile: 'file' | 'general', step: ProposedStep | undefined): { name: string; workspace: boolean } {
  if (profile === 'file' || !step?.tool) return { name: 'read_file', workspace: true };
  return { name: step.tool, workspace: step.tool.startsWith('workspace.') };
}
