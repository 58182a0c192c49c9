import { splitLines } from '../../../lib/checker';
import type { Observed } from '../stage-input';

/**
 * Observations as numbered lines, within a character budget shared fairly
 * between files: a file under its share leaves the rest to the others, and a
 * file over it is cut at a line boundary with a note saying which lines were
 * left out. The model's context is finite (`num_ctx`); a prompt that silently
 * overflows it would be truncated by Ollama instead, from the front.
 */
export function fitEvidence(observations: Observed[], maxChars: number): string[] {
  const rendered = observations.map((o) => numberedLines(o.text));
  const sizes = rendered.map((lines) => lines.reduce((n, l) => n + l.length + 1, 0));
  const shares = fairShares(sizes, maxChars);
  return observations.map((o, i) => {
    const lines = rendered[i]!;
    let used = 0;
    let kept = 0;
    while (kept < lines.length && used + lines[kept]!.length + 1 <= shares[i]!) used += lines[kept++]!.length + 1;
    const header = `=== ${o.path} (${lines.length} lines) ===`;
    const cut = kept < lines.length ? [`… lines ${kept + 1}-${lines.length} not shown (over the evidence budget)`] : [];
    return [header, ...lines.slice(0, kept), ...cut].join('\n');
  });
}

/** Max-min fair split of `budget`: smallest demands are met first, what they leave goes to the rest. */
function fairShares(demands: number[], budget: number): number[] {
  const shares = demands.map(() => 0);
  const smallestFirst = demands.map((_, i) => i).sort((a, b) => demands[a]! - demands[b]!);
  let left = budget;
  smallestFirst.forEach((i, k) => {
    shares[i] = Math.min(demands[i]!, Math.floor(left / (smallestFirst.length - k)));
    left -= shares[i]!;
  });
  return shares;
}

function numberedLines(text: string): string[] {
  const lines = splitLines(text);
  const width = String(lines.length).length;
  return lines.map((l, i) => `${String(i + 1).padStart(width)}| ${l}`);
}
