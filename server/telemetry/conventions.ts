
/**
 * Every OpenTelemetry name planscope emits on its spans, in one place.
 *
 * The GenAI semantic conventions are still in Development status and move
 * (`gen_ai.system` became `gen_ai.provider.name`; the conventions left the
 * main semantic-conventions repository for their own). The names are
 * written out here rather than imported from
 * `@opentelemetry/semantic-conventions/incubating`, whose GenAI exports are
 * already marked deprecated and may go in a minor release; a unit test
 * checks them against that package, so a rename shows up as a failing test
 * on upgrade, and following it is an edit of this file alone.
 * Where no convention exists, names are planscope's own, under `planscope.`.
 */

import { parseModelRef } from '../../lib/model-ref';

export const GenAi = {
  operationName: 'gen_ai.operation.name',
  providerName: 'gen_ai.provider.name',
  /** The name before `gen_ai.provider.name`, emitted beside it for dashboards that still read it. */
  system: 'gen_ai.system',
  agentName: 'gen_ai.agent.name',
  agentId: 'gen_ai.agent.id',
  conversationId: 'gen_ai.conversation.id',
  requestModel: 'gen_ai.request.model',
  requestTemperature: 'gen_ai.request.temperature',
  requestMaxTokens: 'gen_ai.request.max_tokens',
  outputType: 'gen_ai.output.type',
  responseFinishReasons: 'gen_ai.response.finish_reasons',
  usageInputTokens: 'gen_ai.usage.input_tokens',
  usageOutputTokens: 'gen_ai.usage.output_tokens',
  inputMessages: 'gen_ai.input.messages',
  outputMessages: 'gen_ai.output.messages',
  toolName: 'gen_ai.tool.name',
  toolType: 'gen_ai.tool.type',
  toolCallId: 'gen_ai.tool.call.id',
  toolCallArguments: 'gen_ai.tool.call.arguments',
  toolCallResult: 'gen_ai.tool.call.result',
  evaluationName: 'gen_ai.evaluation.name',
  evaluationScoreValue: 'gen_ai.evaluation.score.value',
  evaluationScoreLabel: 'gen_ai.evaluation.score.label',
} as const;

export const GenAiOperation = {
  invokeAgent: 'invoke_agent',
  chat: 'chat',
  executeTool: 'execute_tool',
} as const;

/** The GenAI evaluation event, put on the Checker's span with the grounding score. */
export const GEN_AI_EVALUATION_EVENT = 'gen_ai.evaluation.result';

export const Mcp = {
  methodName: 'mcp.method.name',
  toolsCall: 'tools/call',
} as const;

export const General = {
  errorType: 'error.type',
  serverAddress: 'server.address',
  serverPort: 'server.port',
  networkTransport: 'network.transport',
  /** stdio: the MCP bridge is a child process spoken to over pipes. */
  transportPipe: 'pipe',
} as const;

/** planscope's own spans and attributes, where no convention exists. */
export const Planscope = {
  queueSpan: 'planscope.queue',
  roundSpan: 'planscope.round',
  validateSpan: 'planscope.validate',
  cacheReuseSpan: 'planscope.cache_reuse',
  reasonSpan: 'planscope.reason',
  /** A step the run ended in the middle of: what it would have become is not known. */
  stepSpan: 'planscope.step',
  checkSpan: 'planscope.check',
  reviewSpan: 'planscope.review',
  rejectionEvent: 'planscope.rejection',

  runId: 'planscope.run.id',
  status: 'planscope.status',
  strategy: 'planscope.strategy',
  profile: 'planscope.profile',
  baseline: 'planscope.baseline',
  attempts: 'planscope.attempts',
  call: 'planscope.call',
  role: 'planscope.role',
  round: 'planscope.round',
  planSteps: 'planscope.plan.steps',
  verdict: 'planscope.verdict',
  rejections: 'planscope.rejections',
  rejectionCode: 'planscope.rejection.code',
  rejectionStep: 'planscope.rejection.step',
  rejectionPath: 'planscope.rejection.path',
  rejectionMessage: 'planscope.rejection.message',
  replanCodes: 'planscope.replan.codes',
  stepIndex: 'planscope.step.index',
  stepPath: 'planscope.step.path',
  readAhead: 'planscope.step.read_ahead',
  cacheFromRound: 'planscope.cache.from_round',
  observationSha256: 'planscope.observation.sha256',
  observationBytes: 'planscope.observation.bytes',
  reasoningStatus: 'planscope.reasoning.status',
  groundingScore: 'planscope.grounding_score',
  claimsSupported: 'planscope.claims.supported',
  claimsTotal: 'planscope.claims.total',
  reviewFlagged: 'planscope.review.flagged',
  /** What a step or call was left doing when the run ended without its own end event. */
  unfinished: 'planscope.unfinished',
} as const;

/**
 * `gen_ai.provider.name` for the model behind a run: the API it speaks, or
 * the engine that runs it. `openai` for a model on an OpenAI-compatible
 * server (`openaiServers` are the configured names), `llama.cpp` for an
 * embedded model (inside planscope), `ollama` otherwise.
 */
export function providerName(run: { baseline: boolean; model: string }, openaiServers: readonly string[]): string {
  if (run.baseline) return 'planscope.offline';
  const { provider } = parseModelRef(run.model, openaiServers);
  return provider === 'openai' ? 'openai' : provider === 'embedded' ? 'llama.cpp' : 'ollama';
}

export const AGENT_NAME = 'planscope';
