import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';

export interface Note {
  /** Path relative to the notes folder, e.g. "meetings/2024-05-02.md". */
  name: string;
  text: string;
}

/** Reads every Markdown file under `folder`, skipping hidden folders. */
export async function loadNotes(folder: string): Promise<Note[]> {
  const notes: Note[] = [];
  for (const entry of await readdir(folder, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.md')) continue;
    const full = join(entry.parentPath, entry.name);
    const name = relative(folder, full);
    if (name.split('/').some((part) => part.startsWith('.'))) continue;
    notes.push({ name, text: await readFile(full, 'utf8') });
  }
  return notes;
}

/** Lower-cased words of three letters or more, used for naive relevance scoring. */
export function words(text: string): Set<string> {
  return new Set(text.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? []);
}

/** How many of the question's words a note contains; ties keep file order. */
export function score(question: string, note: Note): number {
  const noteWords = words(note.text);
  let hits = 0;
  for (const word of words(question)) if (noteWords.has(word)) hits += 1;
  return hits;
}
