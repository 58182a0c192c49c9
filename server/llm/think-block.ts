/**
 * Some models (and Ollama servers older than `think`) write their reasoning
 * into the reply itself, as a leading `<think>...</think>` block, even when
 * thinking was asked off. That block is thinking, not the answer: it is moved
 * to the thinking text, and the rest is what gets parsed.
 */

const OPEN = '<think>';
const CLOSE = '</think>';

export interface SplitReply {
  content: string;
  /** The block's inside; empty when there was none. */
  thinking: string;
  moved: boolean;
}

/** A leading block is split off; an unclosed one (the reply ran out inside it) is all thinking. */
export function splitThinkBlock(content: string): SplitReply {
  const start = content.length - content.trimStart().length;
  if (!content.startsWith(OPEN, start)) return { content, thinking: '', moved: false };
  const end = content.indexOf(CLOSE, start + OPEN.length);
  if (end < 0) return { content: '', thinking: content.slice(start + OPEN.length).trim(), moved: true };
  return { content: content.slice(end + CLOSE.length).trimStart(), thinking: content.slice(start + OPEN.length, end).trim(), moved: true };
}

/**
 * The same, on a reply as it streams: deltas are held back while the reply
 * may still be opening a block or is inside one, so what is passed on
 * (to follow a plan as it streams) is the content only.
 */
export function thinkBlockFilter(): (delta: string) => string {
  let seen = '';
  let passing = false;
  return (delta) => {
    if (passing) return delta;
    seen += delta;
    const lead = seen.trimStart();
    if (lead.length < OPEN.length && OPEN.startsWith(lead)) return '';
    if (!lead.startsWith(OPEN)) {
      passing = true;
      return seen;
    }
    const end = lead.indexOf(CLOSE);
    if (end < 0) return '';
    passing = true;
    return lead.slice(end + CLOSE.length).trimStart();
  };
}

/** Thinking was off, yet the content opens with a <think> block: it joins the thinking, and the rest is the reply. */
export function movedThinkBlock<T extends { content: string; thinking: string }>(transcript: T): T & { thinkBlockMoved: boolean } {
  const split = splitThinkBlock(transcript.content);
  if (!split.moved) return { ...transcript, thinkBlockMoved: false };
  const thinking = [transcript.thinking, split.thinking].filter((t) => t !== '').join('\n');
  return { ...transcript, content: split.content, thinking, thinkBlockMoved: true };
}

/**
 * A reply as it streams in, whichever wire it comes over (Ollama's NDJSON,
 * an OpenAI-compatible server's SSE): the content and thinking gathered, the
 * content passed on as it comes (without a <think> block written while
 * thinking was off), and at the end the reply with that block moved.
 */
export class StreamedReply {
  content = '';
  thinking = '';
  private readonly contentOnly: (delta: string) => string;

  constructor(private readonly request: { options: { think: boolean }; onContent?: (delta: string) => void }) {
    this.contentOnly = request.options.think ? (delta) => delta : thinkBlockFilter();
  }

  add(content: string, thinking: string): void {
    this.thinking += thinking;
    this.content += content;
    const passed = content ? this.contentOnly(content) : '';
    if (passed) this.request.onContent?.(passed);
  }

  /** What had streamed in, as a failure keeps it. */
  partial(): { content: string; thinking: string } {
    return { content: this.content, thinking: this.thinking };
  }

  /** The whole reply, a <think> block written while thinking was off moved to the thinking. */
  finished(): { content: string; thinking: string; thinkBlockMoved: boolean } {
    return this.request.options.think ? { ...this.partial(), thinkBlockMoved: false } : movedThinkBlock(this.partial());
  }
}
