/**
 * How deep arrays and objects may nest in JSON planscope takes from outside
 * (a run bundle, the recorded inputs and prompts inside it). Anything that
 * walks a value recursively (a schema, a deep comparison, a serialiser)
 * overflows the stack somewhere past a few thousand levels; nothing
 * planscope writes comes near this.
 */
export const MAX_JSON_NESTING = 64;

/** Whether no array or object in `text` nests deeper than `max`: one pass over the text, strings skipped, nothing parsed. */
export function jsonNestingWithin(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return false;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return true;
}
