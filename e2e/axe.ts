import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';

/** WCAG 2.0 and 2.1 at levels A and AA: the rules the dashboard is held to, in both themes. */
export const WCAG_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

/** One broken rule, with where it broke and why: enough to fix it from the test report alone. */
export interface AxeFinding {
  rule: string;
  impact: string | null;
  help: string;
  nodes: { target: string; why: string }[];
}

/**
 * The axe violations of the page as it is now: one scan of the whole
 * document (hidden elements skipped by axe itself). Only violations are
 * detailed (`resultTypes`): axe then keeps one node per passing rule
 * instead of every one, less to build and send back from a dense page.
 */
export async function axeFindings(page: Page): Promise<AxeFinding[]> {
  // options() replaces what withTags() set, so it comes first.
  const results = await new AxeBuilder({ page }).options({ resultTypes: ['violations'] }).withTags(WCAG_TAGS).analyze();
  return results.violations.map((v) => ({
    rule: v.id,
    impact: v.impact ?? null,
    help: v.help,
    nodes: v.nodes.map((n) => ({ target: n.target.join(' '), why: (n.failureSummary ?? '').replace(/\s+/g, ' ').trim() })),
  }));
}

/** How many offending elements, all rules together. */
export function findingCount(findings: AxeFinding[]): number {
  return findings.reduce((n, f) => n + f.nodes.length, 0);
}
