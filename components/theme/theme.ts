/**
 * The colour theme: the person's choice (`system`, `light`, `dark`) kept in
 * localStorage, and the theme it resolves to on `<html data-theme>`, which
 * Tailwind's `dark:` variant reads (app/globals.css). `system` follows
 * `prefers-color-scheme`, also when it changes while the page is open.
 */
export type ThemeChoice = 'system' | 'light' | 'dark';

export const THEME_CHOICES: readonly ThemeChoice[] = ['system', 'light', 'dark'];

const STORAGE_KEY = 'planscope-theme';
const DARK_QUERY = '(prefers-color-scheme: dark)';
const CHANGED = 'planscope-theme-changed';

/**
 * Sets `<html>` from `chosen`, or else from the stored choice. Self-contained
 * (no reference outside its body) because its source is also the inline
 * script that runs before the first paint, so a dark page never flashes light.
 */
function applyTheme(key: string, query: string, chosen?: string): void {
  let choice = chosen ?? 'system';
  if (chosen === undefined) {
    try {
      const stored = window.localStorage.getItem(key);
      if (stored === 'light' || stored === 'dark') choice = stored;
    } catch {
      // Storage can be refused (private modes, policies): the system setting still applies.
    }
  }
  const dark = choice === 'dark' || (choice === 'system' && window.matchMedia(query).matches);
  const root = document.documentElement;
  root.dataset.theme = dark ? 'dark' : 'light';
  root.dataset.themeChoice = choice;
}

/** The inline `<script>` for the document's `<head>`. */
export const THEME_SCRIPT = `(${applyTheme.toString()})(${JSON.stringify(STORAGE_KEY)}, ${JSON.stringify(DARK_QUERY)})`;

/** The choice in effect, as the page shows it; null on the server, which cannot know it. */
export function currentThemeChoice(): ThemeChoice | null {
  const choice = document.documentElement.dataset.themeChoice;
  return THEME_CHOICES.find((c) => c === choice) ?? null;
}

export function chooseTheme(choice: ThemeChoice): void {
  try {
    if (choice === 'system') window.localStorage.removeItem(STORAGE_KEY);
    else window.localStorage.setItem(STORAGE_KEY, choice);
  } catch {
    // Not remembered, but still applied to this page.
  }
  applyTheme(STORAGE_KEY, DARK_QUERY, choice);
  window.dispatchEvent(new Event(CHANGED));
}

/**
 * Calls `onChange` whenever the theme may have changed: a choice made here,
 * in another tab (the storage event), or the system's setting.
 */
export function subscribeToTheme(onChange: () => void): () => void {
  // A page React renders whole in the browser (a not-found page) replaces <html>'s attributes after the inline script ran.
  if (currentThemeChoice() === null) applyTheme(STORAGE_KEY, DARK_QUERY);
  const media = window.matchMedia(DARK_QUERY);
  const onSystemChange = () => {
    applyTheme(STORAGE_KEY, DARK_QUERY, currentThemeChoice() ?? undefined);
    onChange();
  };
  const onStorage = (event: StorageEvent) => {
    if (event.key !== STORAGE_KEY && event.key !== null) return;
    applyTheme(STORAGE_KEY, DARK_QUERY);
    onChange();
  };
  media.addEventListener('change', onSystemChange);
  window.addEventListener('storage', onStorage);
  window.addEventListener(CHANGED, onChange);
  return () => {
    media.removeEventListener('change', onSystemChange);
    window.removeEventListener('storage', onStorage);
    window.removeEventListener(CHANGED, onChange);
  };
}
