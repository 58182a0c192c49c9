import type { LanternConfig } from './config.js';
import type { ChatMessage } from './llm.js';
import { score, type Note } from './notes.js';

export interface ReadingPlan {
  question: string;
  /** Notes to show the model, most relevant first. */
  notes: Note[];
}

/**
 * Picks the notes worth sending for a question. Scoring is lexical on
 * purpose: it is predictable, needs no embedding model, and the notes
 * folders we target are small.
 */
export function planReading(question: string, notes: Note[], config: LanternConfig): ReadingPlan {
  const ranked = notes
    .map((note, index) => ({ note, index, hits: score(question, note) }))
    .filter((entry) => entry.hits > 0)
    .sort((a, b) => b.hits - a.hits || a.index - b.index)
    .slice(0, config.maxNotes);
  return { question, notes: ranked.map((entry) => entry.note) };
}

/** The messages for one answer: the notes as numbered sources, then the question. */
export function buildMessages(plan: ReadingPlan): ChatMessage[] {
  const sources = plan.notes
    .map((note, i) => `[${i + 1}] ${note.name}\n${note.text.trim()}`)
    .join('\n\n');
  return [
    {
      role: 'system',
      content:
        'Answer only from the numbered notes. Cite them like [1]. ' +
        'If the notes do not contain the answer, say so.',
    },
    { role: 'user', content: `Notes:\n\n${sources}\n\nQuestion: ${plan.question}` },
  ];
}
