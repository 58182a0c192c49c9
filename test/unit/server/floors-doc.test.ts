import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SERVER_FLOORS } from '../../../eslint.config.mjs';

/** The floors of server/ are held by the lint; the table in docs/architecture.md must say the same, so it cannot drift. */
describe('the floors of server/ in docs/architecture.md', () => {
  it('are the lint\'s floors, top floor first', () => {
    const doc = fs.readFileSync(path.join(__dirname, '../../../docs/architecture.md'), 'utf8');
    const table = doc.split('| floor | parts of `server/` |')[1]!.split('\n\n')[0]!;
    const rows = [...table.matchAll(/^\| (\d+) \| (.+) \|$/gm)].map(([, floor, parts]) => ({
      floor: Number(floor),
      parts: [...parts!.matchAll(/`([^`]+)`/g)].map(([, part]) => part!.replace(/\/$/, '')),
    }));
    const expected = SERVER_FLOORS.map((parts: string[], i: number) => ({ floor: i + 1, parts })).reverse();
    expect(rows).toEqual(expected);
  });
});
