/**
 * The opening lines of an observed file, sent with the run page so that the
 * viewer shows its first screenful at first paint instead of after
 * hydration and a fetch of the whole text (megabytes, for a large log).
 * What the page sends twice (rows in the HTML, text in the RSC payload) is
 * bounded by the constants below.
 */
export interface TextHead {
  /** The artifact whose text this is the beginning of. */
  artifact: string;
  text: string;
  /** True when `text` is the whole artifact: nothing more to fetch. */
  complete: boolean;
}

/** A screenful and then some: the viewer is at most ~50 rows tall on a large screen. */
const HEAD_MAX_LINES = 100;
/** A bound for files of very long lines (minified, logs): the head must stay small next to the HTML. */
const HEAD_MAX_CHARS = 16_000;
/** Enough UTF-8 for `HEAD_MAX_CHARS` characters (at most 3 bytes per UTF-16 unit): what the page reads of a file. */
export const HEAD_MAX_BYTES = HEAD_MAX_CHARS * 3;

/**
 * The first `maxLines` lines of `text` (each with its line break), cut at
 * `maxChars` if they are longer. Never cuts a surrogate pair in two, so the
 * head is always valid text and a prefix of the whole.
 */
export function headOfText(text: string, maxLines = HEAD_MAX_LINES, maxChars = HEAD_MAX_CHARS): { text: string; complete: boolean } {
  let end = 0;
  for (let line = 0; line < maxLines && end < text.length; line++) {
    const lf = text.indexOf('\n', end);
    end = lf === -1 ? text.length : lf + 1;
  }
  if (end > maxChars) {
    end = maxChars;
    const last = text.charCodeAt(end - 1);
    if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  }
  return end >= text.length ? { text, complete: true } : { text: text.slice(0, end), complete: false };
}
