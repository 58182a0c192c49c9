import { describe, expect, it } from 'vitest';
import { rootOf, routesServed, taskName } from '../../../server/queue/route';

describe('a run\'s route on the queue', () => {
  it('names the model and the root in the task name', () => {
    expect(taskName({ model: 'qwen3:8b', root: '/srv/repos' })).toBe('planscope.run:qwen3:8b@/srv/repos');
  });

  it('goes to the deepest root the workspace is in, and nowhere when it is in none', () => {
    const roots = ['/srv', '/srv/repos', '/home/ann'];
    expect(rootOf('/srv/repos/app', roots)).toBe('/srv/repos');
    expect(rootOf('/srv/other', roots)).toBe('/srv');
    expect(rootOf('/srv/repos', roots)).toBe('/srv/repos');
    expect(rootOf('/srv-old/app', roots)).toBeNull();
    expect(rootOf('/home/bob', roots)).toBeNull();
  });

  it('a worker serves every model in every root it reaches, each once', () => {
    expect(routesServed(['a:latest', 'b:1', 'a:latest'], ['/x', '/y'])).toEqual([
      { model: 'a:latest', root: '/x' },
      { model: 'a:latest', root: '/y' },
      { model: 'b:1', root: '/x' },
      { model: 'b:1', root: '/y' },
    ]);
  });
});
