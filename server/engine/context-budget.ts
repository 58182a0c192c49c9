import type { CallOptions } from '../../lib/events';
import { renderPrompt } from '../llm/prompts';
import type { StageInput } from '../llm/stage-input';
import type { Prompt } from '../llm/types';

/**
 * Keeping a prompt inside the model's context window. Ollama does not
 * refuse a prompt longer than `num_ctx`: it drops the prompt's beginning
 * (the instructions) and answers the rest, silently. So the prompt is
 * measured before it is sent, its evidence shrunk to fit, and the reply
 * judged afterwards by how many tokens Ollama says it read.
 */

/**
 * Tokens a prompt will take at most, as a conservative estimate: one token
 * per 3 characters, plus 8 per message for the chat template's markers.
 * Llama, Qwen, Gemma and Mistral tokenizers average 3.5 to 4.5 characters a
 * token on English and code, so this overestimates them, which is the safe
 * side. No tokenizer package matches those families without shipping each
 * model's vocabulary (megabytes), and `js-tiktoken` is OpenAI's vocabulary,
 * no closer than this; text far denser than 3 characters a token (CJK,
 * minified code) is caught after the call instead (`evidentlyCut`).
 */
export function estimatePromptTokens(prompt: Prompt): number {
  return prompt.messages.reduce((n, m) => n + Math.ceil(m.content.length / CHARS_PER_TOKEN) + TOKENS_PER_MESSAGE, 0);
}

const CHARS_PER_TOKEN = 3;
const TOKENS_PER_MESSAGE = 8;
/** Cuts of the evidence tried before giving up: each one is a render, not a call. */
const MAX_SHRINKS = 8;

export interface FittedPrompt {
  input: StageInput;
  prompt: Prompt;
  /** The estimate for the prompt as sent. */
  estimatedTokens: number;
  /** The evidence budget was lowered to fit: from and to, in characters. */
  shrunk: { fromChars: number; toChars: number } | null;
}

export type Fit = { ok: true; fitted: FittedPrompt } | { ok: false; estimatedTokens: number; message: string };

/**
 * The input's prompt, with its evidence cut down (fairly between files, by
 * the prompt builder) until prompt + `num_predict` fits `num_ctx`; or why it
 * cannot fit. Inputs without evidence cannot shrink.
 */
export function fitPrompt(input: StageInput, options: Pick<CallOptions, 'numCtx' | 'numPredict'>): Fit {
  const room = options.numCtx - options.numPredict;
  let current = input;
  let prompt = renderPrompt(current);
  let estimate = estimatePromptTokens(prompt);
  for (let i = 0; estimate > room && i < MAX_SHRINKS; i++) {
    const smaller = withLessEvidence(current, estimate - room);
    if (!smaller) break;
    current = smaller;
    prompt = renderPrompt(current);
    estimate = estimatePromptTokens(prompt);
  }
  if (estimate > room) {
    return {
      ok: false,
      estimatedTokens: estimate,
      message:
        `The prompt needs about ${estimate} tokens and the reply up to ${options.numPredict} (num_predict), more than the ${options.numCtx}-token context (num_ctx)` +
        `${current !== input ? ' even with its evidence cut down' : ''}. Raise PLANSCOPE_NUM_CTX (within the model's context length), lower the num_predict, or ask about fewer files.`,
    };
  }
  const shrunk = current === input ? null : { fromChars: evidenceBudget(input)!, toChars: evidenceBudget(current)! };
  return { ok: true, fitted: { input: current, prompt, estimatedTokens: estimate, shrunk } };
}

/**
 * The same input with less evidence: the budget brought down to what is
 * shown (a budget above that cuts nothing), then cut by the overshoot (and
 * by a fifth at least, so the loop gets somewhere), or by half when no
 * overshoot is known; null when it has no evidence to cut.
 */
export function withLessEvidence(input: StageInput, overshootTokens?: number): StageInput | null {
  if (!('maxEvidenceChars' in input)) return null;
  const shown = Math.min(input.maxEvidenceChars, renderedEvidenceChars(input));
  if (shown <= 0) return null;
  const next = overshootTokens === undefined ? Math.floor(shown / 2) : Math.min(Math.floor(shown * 0.8), shown - overshootTokens * CHARS_PER_TOKEN);
  return { ...input, maxEvidenceChars: Math.max(0, next) };
}

/**
 * A planner's input with the first half of the workspace listing: the
 * shorter prompt a planner whose prompt Ollama cut is asked with once more
 * (its listing is what makes it long); null for other inputs, and for a
 * listing too short to halve.
 */
export function withFewerFiles(input: StageInput): StageInput | null {
  if ((input.kind !== 'plan' && input.kind !== 'general-plan') || input.files.length < 2) return null;
  return { ...input, files: input.files.slice(0, Math.ceil(input.files.length / 2)) };
}

/** About what the evidence takes as the prompt shows it: its text, and a line-number prefix a line. */
function renderedEvidenceChars(input: StageInput & { maxEvidenceChars: number }): number {
  const texts =
    input.kind === 'answer' ? input.observations.map((o) => o.text)
    : input.kind === 'reason' ? input.evidence.map((o) => o.text)
    : input.kind === 'act' ? input.turns.map((t) => t.text ?? '')
    : [];
  return texts.reduce((n, text) => n + text.length + (text.split('\n').length * LINE_PREFIX_CHARS), 0);
}

const LINE_PREFIX_CHARS = 6;

function evidenceBudget(input: StageInput): number | null {
  return 'maxEvidenceChars' in input ? input.maxEvidenceChars : null;
}

/**
 * Ollama cut the prompt to fit the window: the tokens it read reached
 * `num_ctx` (what it keeps of a longer prompt), though the estimate said
 * the prompt and the reply fit.
 */
export function evidentlyCut(promptTokens: number | null, numCtx: number): boolean {
  return promptTokens !== null && promptTokens >= numCtx - CUT_SLACK_TOKENS;
}

/** Ollama keeps a few tokens short of the window when it truncates (room for the first generated token). */
const CUT_SLACK_TOKENS = 8;

/**
 * Context sizes a call sized to its prompt asks for: doublings from 2048,
 * so that a run's calls share a few sizes (Ollama reloads the model when
 * `num_ctx` changes) rather than each asking for its own.
 */
const CONTEXT_STEPS = Array.from({ length: 10 }, (_, i) => 2048 * 2 ** i);

/**
 * `num_ctx` sized to the prompt (PLANSCOPE_NUM_CTX_AUTO): the smallest step
 * the prompt's estimate and `num_predict` fit, never less than `floor` (the
 * most the run has asked for so far: a smaller context would reload the
 * model), and never more than the options' `num_ctx` (the configured value
 * within the model's context length). A prompt larger than that cap gets
 * the cap, and is fitted to it as any other.
 */
export function sizedToPrompt(input: StageInput, options: CallOptions, floor: number): CallOptions {
  const needed = estimatePromptTokens(renderPrompt(input)) + options.numPredict;
  const step = CONTEXT_STEPS.find((size) => size >= needed) ?? options.numCtx;
  return { ...options, numCtx: Math.min(options.numCtx, Math.max(step, floor)) };
}

/** The call's options with `num_ctx` no larger than what the model can take (its `/api/show` context length). */
export function withinContextLength(options: CallOptions, contextLength: number | null | undefined): CallOptions {
  if (!contextLength || options.numCtx <= contextLength) return options;
  return { ...options, numCtx: contextLength };
}
