import { Tokenizer, TokenParser, TokenType } from '@streamparser/json';

/**
 * How deep the followed reply may nest. A plan is an object of steps whose
 * arguments nest a few levels; the token parser's work per value grows with
 * the depth, so a reply of 50,000 nested brackets would hold the event loop
 * for seconds.
 */
export const MAX_FOLLOWED_DEPTH = 32;

/**
 * Watches a planner reply as it streams and hands over each step the moment
 * its object closes, so the executor can start on it while the model is
 * still writing the rest (LLMCompiler's streamed planner). What it sees is a
 * hint only: the whole reply is parsed and validated as usual once it ends,
 * and a reply this cannot follow (not JSON, fenced, broken, nested deeper
 * than MAX_FOLLOWED_DEPTH) simply yields no further early steps.
 */
export function planStepStream(onStep: (step: unknown) => void): (delta: string) => void {
  const tokenizer = new Tokenizer();
  const parser = new TokenParser({ paths: ['$.steps.*'], keepStack: false });
  let following = true;
  let depth = 0;
  const stop = () => {
    following = false;
  };
  tokenizer.onToken = (token) => {
    if (!following) return;
    if (token.token === TokenType.LEFT_BRACE || token.token === TokenType.LEFT_BRACKET) depth += 1;
    else if (token.token === TokenType.RIGHT_BRACE || token.token === TokenType.RIGHT_BRACKET) depth -= 1;
    if (depth > MAX_FOLLOWED_DEPTH) return stop();
    parser.write(token);
  };
  tokenizer.onError = stop;
  parser.onError = stop;
  parser.onValue = ({ value }) => onStep(value);
  return (delta) => {
    if (!following || tokenizer.isEnded || parser.isEnded) return;
    try {
      tokenizer.write(delta);
    } catch {
      stop();
    }
  };
}
