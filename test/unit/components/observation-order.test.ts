import { describe, expect, it } from 'vitest';
import { observationsInOrder } from '../../../components/run-page/observation-order';
import type { ObservationView } from '../../../lib/run-state';

const obs = (path: string, round: number): ObservationView => ({
  path,
  round,
  sha256: path,
  bytes: 1,
  lines: 1,
  mtimeMs: 0,
  artifact: `observation/${path}`,
  reusedInRounds: [],
  previousSha256: [],
});

describe('observationsInOrder', () => {
  it('lists by round, then by path in code-unit order (the same on the server and in any browser)', () => {
    const list = observationsInOrder({
      'src/b.ts': obs('src/b.ts', 1),
      'docs/a.md': obs('docs/a.md', 2),
      'README.md': obs('README.md', 1),
      'src/a.ts': obs('src/a.ts', 1),
    });
    expect(list.map((o) => o.path)).toEqual(['README.md', 'src/a.ts', 'src/b.ts', 'docs/a.md']);
  });
});
