import type { StageInput } from '../stage-input';
import type { Prompt } from '../types';
import { actorMessages } from './actor';
import { filePlannerMessages, generalPlannerMessages } from './planner';
import { reasoningMessages } from './reasoning';
import { reviewerMessages } from './reviewer';
import { synthesizerMessages } from './synthesizer';

/** The chat prompt for a stage's input: the messages, and the reply's schema as `format`. */
export function renderPrompt(input: StageInput): Prompt {
  return { messages: messagesFor(input), format: input.schema };
}

function messagesFor(input: StageInput) {
  switch (input.kind) {
    case 'plan':
      return filePlannerMessages(input);
    case 'general-plan':
      return generalPlannerMessages(input);
    case 'answer':
      return synthesizerMessages(input);
    case 'reason':
      return reasoningMessages(input);
    case 'act':
      return actorMessages(input);
    case 'review':
      return reviewerMessages(input);
  }
}
