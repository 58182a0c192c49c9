#!/usr/bin/env node
import { loadConfig } from './config.js';
import { LlmClient, LlmError } from './llm.js';
import { loadNotes } from './notes.js';
import { buildMessages, planReading } from './planner.js';

const USAGE = 'usage: lantern ask <notes-folder> "<question>"';

async function main(argv: string[]): Promise<number> {
  const [command, folder, question] = argv;
  if (command !== 'ask' || !folder || !question) {
    console.error(USAGE);
    return 2;
  }
  const config = loadConfig();
  const notes = await loadNotes(folder);
  const plan = planReading(question, notes, config);
  if (plan.notes.length === 0) {
    console.log('No note mentions anything from the question.');
    return 1;
  }
  const reply = await new LlmClient(config).chat(buildMessages(plan));
  console.log(reply.text.trim());
  console.log('');
  plan.notes.forEach((note, i) => console.log(`[${i + 1}] ${note.name}`));
  console.error(`(${reply.model}, ${reply.promptTokens} prompt + ${reply.replyTokens} reply tokens)`);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof LlmError ? error.message : error);
    process.exit(1);
  },
);
