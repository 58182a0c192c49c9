import { describe, expect, it } from 'vitest';
import { THEME_SCRIPT } from '../../../components/theme/theme';

/** Runs the inline script as the browser would, before anything else, against a stand-in page. */
function runScript({ stored, systemDark, storage = true }: { stored: string | null; systemDark: boolean; storage?: boolean }) {
  const root = { dataset: {} as Record<string, string> };
  const window = {
    localStorage: {
      getItem: (key: string) => {
        if (!storage) throw new Error('SecurityError: storage is disabled');
        return key === 'planscope-theme' ? stored : null;
      },
    },
    matchMedia: (query: string) => ({ matches: query === '(prefers-color-scheme: dark)' && systemDark }),
  };
  new Function('window', 'document', THEME_SCRIPT)(window, { documentElement: root });
  return root.dataset;
}

describe('THEME_SCRIPT', () => {
  it('follows the system when nothing is chosen', () => {
    expect(runScript({ stored: null, systemDark: true })).toEqual({ theme: 'dark', themeChoice: 'system' });
    expect(runScript({ stored: null, systemDark: false })).toEqual({ theme: 'light', themeChoice: 'system' });
  });

  it('applies a remembered choice over the system', () => {
    expect(runScript({ stored: 'dark', systemDark: false })).toEqual({ theme: 'dark', themeChoice: 'dark' });
    expect(runScript({ stored: 'light', systemDark: true })).toEqual({ theme: 'light', themeChoice: 'light' });
  });

  it('ignores a stored value it does not know, and storage that is refused', () => {
    expect(runScript({ stored: 'sepia', systemDark: true })).toEqual({ theme: 'dark', themeChoice: 'system' });
    expect(runScript({ stored: 'dark', systemDark: false, storage: false })).toEqual({ theme: 'light', themeChoice: 'system' });
  });
});
