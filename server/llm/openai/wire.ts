import { z } from 'zod';

/**
 * What an OpenAI-compatible server sends, as far as planscope reads it.
 * Only what is read is required; everything else a server adds (LM Studio's
 * `stats`, llama-server's `timings`, vLLM's `prompt_logprobs`) passes.
 */

const Count = z.number().int().min(0);

/** The reasoning of a thinking model: `reasoning_content` (vLLM, llama-server, LM Studio), `reasoning` (Ollama's /v1, newer vLLM). */
const Delta = z.looseObject({
  content: z.string().nullish(),
  reasoning_content: z.string().nullish(),
  reasoning: z.string().nullish(),
});

export const ChatChunk = z.looseObject({
  /** Some servers send the usage-only chunk with `choices: null` or none at all. */
  choices: z
    .array(z.looseObject({ delta: Delta.nullish(), finish_reason: z.string().nullish() }))
    .nullish(),
  usage: z.looseObject({ prompt_tokens: Count.nullish(), completion_tokens: Count.nullish() }).nullish(),
});
export type ChatChunk = z.infer<typeof ChatChunk>;

/**
 * An error as the servers spell it: OpenAI's `{error: {message, type, code}}`,
 * vLLM's `{object: "error", message, type, code}`, and a bare
 * `{error: "..."}` (Ollama's /v1 on some versions).
 */
const ErrorDetail = z.looseObject({ message: z.string().nullish(), type: z.string().nullish() });
const ErrorBody = z.looseObject({ error: z.union([z.string(), ErrorDetail]).optional(), message: z.string().nullish(), type: z.string().nullish() });

/** A model of `GET /models`, with the context length where the server states it. */
export const ListedModel = z.looseObject({
  id: z.string().min(1),
  /** vLLM. */
  max_model_len: z.number().int().positive().nullish(),
  /** LM Studio (its own REST API says it; its /v1 may too). */
  max_context_length: z.number().int().positive().nullish(),
  /** llama-server: the context the model was trained for. */
  meta: z.looseObject({ n_ctx_train: z.number().int().positive().nullish() }).nullish(),
  /** LocalAI, OpenRouter-style listings. */
  context_length: z.number().int().positive().nullish(),
});

export const ModelList = z.looseObject({ data: z.array(z.unknown()) });

/** The error's own text and type, from a body that may be anything. */
export function errorOf(body: unknown): { message: string | null; type: string | null } {
  const parsed = ErrorBody.safeParse(body);
  if (!parsed.success) return { message: null, type: null };
  const { error, message, type } = parsed.data;
  if (typeof error === 'string') return { message: error, type: null };
  if (error) return { message: error.message ?? null, type: error.type ?? null };
  return { message: message ?? null, type: type ?? null };
}
