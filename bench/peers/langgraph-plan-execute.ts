/**
 * The peer: the same plan-and-execute loop written the way a user would
 * write it with LangGraph.js, following the plan-and-execute tutorial
 * (langchain-ai/langgraphjs, examples/plan-and-execute): an Annotation state
 * of { input, plan, pastSteps (concatenating reducer), response }, nodes
 * `planner -> agent -> replan`, a conditional edge `shouldEnd`, the graph
 * compiled and consumed with `app.stream(inputs, { recursionLimit: 50 })`.
 * Model: a LangChain chat model on the same `ollama` client
 * (chat-ollama-lite.ts, standing in for @langchain/ollama), structured output
 * by JSON Schema. Tools: the same MCP bridge (dist/bridge.mjs) through the
 * MCP SDK client, each tool wrapped with @langchain/core's `tool()`.
 *
 * Where it departs from the tutorial, so that both sides make the same model
 * and tool calls (and the comparison measures the framework, not a different
 * algorithm):
 *  - the tutorial's executor is a ReAct sub-agent that spends an LLM call to
 *    pick the tool for each step; here, as in planscope, a step names the
 *    file and the agent node calls `read_file` directly;
 *  - the tutorial's replanner is an LLM call after every step; here the
 *    replan node calls the model only when a round had a failed step (a new
 *    plan, already-read files skipped as the tutorial's prompt asks) or when
 *    the plan is done (the answer), as planscope does;
 *  - no persistence by default (the tutorial has no checkpointer); pass
 *    `checkpointer: true` for a MemorySaver, the usual first addition.
 * Nothing is stored, checked or validated beyond what the parser does:
 * planscope's event log, SQLite writes, path policy and Checker have no
 * counterpart here, which favours the peer.
 */
import { MemorySaver, Annotation, END, START, StateGraph } from '@langchain/langgraph';
import { ChatPromptTemplate } from '@langchain/core/prompts';
import { tool } from '@langchain/core/tools';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import path from 'node:path';
import { z } from 'zod';
import { ChatOllamaLite } from './chat-ollama-lite';

const Step = z.object({ purpose: z.string(), path: z.string() });
type Step = z.infer<typeof Step>;
const Plan = z.object({ steps: z.array(Step).min(1).max(4).describe('different steps to follow, should be in sorted order') });
const Answer = z.object({
  claims: z.array(
    z.object({
      text: z.string(),
      citations: z.array(z.object({ path: z.string(), startLine: z.number(), endLine: z.number(), quote: z.string() })),
    }),
  ),
});

interface PastStep {
  step: Step;
  round: number;
  ok: boolean;
  result: string;
}

const PlanExecuteState = Annotation.Root({
  input: Annotation<string>({ reducer: (x, y) => y ?? x ?? '' }),
  files: Annotation<string>({ reducer: (x, y) => y ?? x ?? '' }),
  plan: Annotation<Step[]>({ reducer: (x, y) => y ?? x ?? [] }),
  round: Annotation<number>({ reducer: (x, y) => y ?? x ?? 0 }),
  pastSteps: Annotation<PastStep[]>({ reducer: (x, y) => x.concat(y), default: () => [] }),
  response: Annotation<string>({ reducer: (x, y) => y ?? x }),
});
type State = typeof PlanExecuteState.State;

export interface PeerOptions {
  appRoot: string;
  workspace: string;
  ollamaUrl: string;
  model: string;
  maxRounds?: number;
  checkpointer?: boolean;
}

export interface Peer {
  run(task: string): Promise<{ response: string | undefined; rounds: number; steps: number }>;
  close(): Promise<void>;
}

export async function createPeer(options: PeerOptions): Promise<Peer> {
  const maxRounds = options.maxRounds ?? 2;
  // Same server, same transport as planscope's engine uses.
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [path.join(options.appRoot, 'dist', 'bridge.mjs'), '--', options.workspace],
    stderr: 'pipe',
  });
  transport.stderr?.on('data', () => {});
  const mcp = new Client({ name: 'langgraph-peer', version: '0.0.0' }, { capabilities: {} });
  await mcp.connect(transport);

  const textOf = (result: Awaited<ReturnType<typeof mcp.callTool>>) =>
    ((result.content as { type: string; text?: string }[]).find((c) => c.type === 'text')?.text ?? '');
  const listFiles = tool(
    async () => {
      const result = await mcp.callTool({ name: 'list_files', arguments: {} });
      const files = (result.structuredContent as { files: { path: string; bytes: number }[] }).files;
      return files.map((f) => `${f.path} ${f.bytes}`).join('\n');
    },
    { name: 'list_files', description: 'Lists the workspace files with their sizes.', schema: z.object({}) },
  );
  const readFile = tool(
    async ({ path: file }: { path: string }) => {
      const result = await mcp.callTool({ name: 'read_file', arguments: { path: file } });
      return JSON.stringify({ ok: !result.isError, text: textOf(result) });
    },
    { name: 'read_file', description: 'Reads one workspace file.', schema: z.object({ path: z.string() }) },
  );

  const llm = new ChatOllamaLite({ model: options.model, baseUrl: options.ollamaUrl, temperature: 0.1, numPredict: 1600, numCtx: 8192 });

  const plannerPrompt = ChatPromptTemplate.fromMessages([
    [
      'system',
      'For the given objective, come up with a simple step by step plan. Each step reads one file of the workspace, ' +
        'named by its path from this list (path, bytes):\n{files}\nAt most 4 steps. Do not add any superfluous steps.',
    ],
    ['user', '{objective}'],
  ]);
  const planner = plannerPrompt.pipe(llm.withStructuredOutput(Plan));

  const replannerPrompt = ChatPromptTemplate.fromMessages([
    [
      'system',
      'For the given objective, come up with a simple step by step plan. Each step reads one file of the workspace, ' +
        'named by its path from this list (path, bytes):\n{files}\nAt most 4 steps. Do not add any superfluous steps.',
    ],
    [
      'user',
      'Your objective was this:\n{input}\n\nYour original plan was this:\n{plan}\n\nYou have currently done the follow steps:\n{pastSteps}\n\n' +
        'Update your plan accordingly. Only add steps to the plan that still NEED to be done. Do not return previously done steps as part of the plan.',
    ],
  ]);
  const replanner = replannerPrompt.pipe(llm.withStructuredOutput(Plan));

  const responderPrompt = ChatPromptTemplate.fromMessages([
    ['system', 'Answer the objective using only these file contents. Cite path and line numbers for every claim.'],
    ['user', 'Objective: {input}\n\nFiles:\n\n{observations}'],
  ]);
  const responder = responderPrompt.pipe(llm.withStructuredOutput(Answer));

  async function planStep(state: State): Promise<Partial<State>> {
    const files = state.files || ((await listFiles.invoke({})) as string);
    const plan = await planner.invoke({ objective: state.input, files });
    return { plan: plan.steps, round: 1, files };
  }

  async function executeStep(state: State): Promise<Partial<State>> {
    const [task, ...rest] = state.plan;
    const raw = (await readFile.invoke({ path: task!.path })) as string;
    const { ok, text } = JSON.parse(raw) as { ok: boolean; text: string };
    return { pastSteps: [{ step: task!, round: state.round, ok, result: text }], plan: rest };
  }

  async function replanStep(state: State): Promise<Partial<State>> {
    const failed = state.pastSteps.filter((p) => p.round === state.round && !p.ok);
    if (failed.length === 0 || state.round >= maxRounds) {
      const observations = state.pastSteps
        .filter((p) => p.ok)
        .map((p) => [`=== ${p.step.path} ===`, ...p.result.split('\n').map((line, i) => `${i + 1}| ${line}`)].join('\n'))
        .join('\n\n');
      const answer = await responder.invoke({ input: state.input, observations });
      return { response: answer.claims.map((c) => c.text).join(' ') };
    }
    const output = await replanner.invoke({
      input: state.input,
      files: state.files,
      plan: state.plan.concat(state.pastSteps.filter((p) => p.round === state.round).map((p) => p.step)).map((s) => s.path).join('\n'),
      pastSteps: state.pastSteps.map((p) => `${p.step.path}: ${p.ok ? 'done' : `failed: ${p.result}`}`).join('\n'),
    });
    const done = new Set(state.pastSteps.filter((p) => p.ok).map((p) => p.step.path));
    return { plan: output.steps.filter((s) => !done.has(s.path)), round: state.round + 1 };
  }

  const afterAgent = (state: State) => (state.plan.length > 0 ? 'agent' : 'replan');
  const shouldEnd = (state: State) => (state.response ? 'true' : 'false');

  const workflow = new StateGraph(PlanExecuteState)
    .addNode('planner', planStep)
    .addNode('agent', executeStep)
    .addNode('replan', replanStep)
    .addEdge(START, 'planner')
    .addEdge('planner', 'agent')
    .addConditionalEdges('agent', afterAgent, { agent: 'agent', replan: 'replan' })
    .addConditionalEdges('replan', shouldEnd, { true: END, false: 'agent' });
  const app = workflow.compile(options.checkpointer ? { checkpointer: new MemorySaver() } : {});

  let thread = 0;
  return {
    async run(task) {
      const config = { recursionLimit: 50, configurable: { thread_id: `t${++thread}` } };
      let response: string | undefined;
      let rounds = 0;
      let steps = 0;
      for await (const update of await app.stream({ input: task }, config)) {
        const u = update as Record<string, Partial<State>>;
        if (u.replan?.response) response = u.replan.response;
        if (u.planner) rounds = 1;
        if (u.replan?.round) rounds = u.replan.round;
        if (u.agent) steps += 1;
      }
      return { response, rounds, steps };
    },
    async close() {
      await mcp.close();
    },
  };
}
