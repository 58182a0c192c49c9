/**
 * Text for a terminal, with every control character made visible. File
 * contents, model output and tool results reach the CLI's text mode, and a
 * raw escape sequence in them would be obeyed by the terminal (clear the
 * screen, set the title, rewrite earlier lines, on some terminals answer
 * back into the input). Newlines and tabs stay as they are; C0 controls
 * become their Unicode control pictures (ESC shows as ␛), and C1 controls,
 * DEL and invisible format characters (bidi overrides, zero-width) their
 * `\u{…}` escape.
 */
export function printable(text: string): string {
  return text.replace(UNSAFE, (ch) => {
    const code = ch.codePointAt(0)!;
    if (code < 0x20) return String.fromCodePoint(CONTROL_PICTURES + code);
    return `\\u{${code.toString(16)}}`;
  });
}

/**
 * A value as JSON for a terminal: the same JSON value, with every character
 * `printable` would make visible written as a `\u` escape (JSON.stringify
 * leaves C1 controls and bidi overrides raw), so a bundle, a Result or a
 * report printed with --json cannot drive the terminal either.
 */
export function printableJson(value: unknown, space?: number): string {
  return (JSON.stringify(value, null, space) ?? 'null').replace(UNSAFE, (ch) =>
    [...ch]
      .flatMap((c) => (c.length === 2 ? [c.charCodeAt(0), c.charCodeAt(1)] : [c.charCodeAt(0)]))
      .map((unit) => `\\u${unit.toString(16).padStart(4, '0')}`)
      .join(''),
  );
}

/** Controls other than \t and \n, DEL and C1, and format characters (Cf) such as U+202E. */
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\p{Cf}\u2028\u2029]/gu;
/** U+2400 SYMBOL FOR NULL: the first of the C0 control pictures. */
const CONTROL_PICTURES = 0x2400;
