import type { ObservationView } from '@/lib/run-state';

/**
 * The observed files in the order the viewer lists them: by the round that
 * read them, then by path. The first one is what the viewer opens with, so
 * the run page sends its opening lines along with the HTML.
 *
 * Paths compare by code unit, as git lists them: the same order on the
 * server and in every browser (a locale's collation could make the page
 * send the opening lines of a file the viewer does not open with), and no
 * collator to set up on the page's first render.
 */
export function observationsInOrder(observations: Record<string, ObservationView>): ObservationView[] {
  return Object.values(observations).sort((a, b) => a.round - b.round || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
