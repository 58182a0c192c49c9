import JSONParser from '@streamparser/json/jsonparser.js';

/**
 * Watches a planner reply as it streams and hands over each step the moment
 * its object closes, so the executor can start on it while the model is
 * still writing the rest (LLMCompiler's streamed planner). What it sees is a
 * hint only: the whole reply is parsed and validated as usual once it ends,
 * and a reply this cannot follow (not JSON, fenced, broken) simply yields
 * no early steps.
 */
export function planStepStream(onStep: (step: unknown) => void): (delta: string) => void {
  const parser = new JSONParser({ paths: ['$.steps.*'], keepStack: false });
  let following = true;
  parser.onValue = ({ value }) => onStep(value);
  parser.onError = () => {
    following = false;
  };
  return (delta) => {
    if (!following || parser.isEnded) return;
    try {
      parser.write(delta);
    } catch {
      following = false;
    }
  };
}
