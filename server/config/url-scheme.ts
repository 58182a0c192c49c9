/** `raw`'s scheme as `URL` reads it (`https:`), or null when `raw` is no URL at all. */
export function urlScheme(raw: string): string | null {
  return URL.canParse(raw) ? new URL(raw).protocol : null;
}
