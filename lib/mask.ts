/**
 * Host URLs are shown in the UI, the CLI and stored runs, and an Ollama
 * behind a reverse proxy is often reached as `https://user:token@host`.
 * Everything here is string work (no `URL` round trip) so the rest of the
 * text comes back exactly as given, and malformed input never throws.
 */

const MASK = '****';
/** Query parameters that proxies commonly use to carry a credential. */
const SECRET_PARAM = /token|key|secret|pass|auth|^sig(?:nature)?$/i;

/**
 * `s3cretpw` -> `****`, whatever its length: any characters kept (a tail
 * of four, say) narrow a guess and match the secret against a leaked list,
 * and the length would tell how long it is.
 */
export function maskSecret(secret: string): string {
  return secret === '' ? '' : MASK;
}

/**
 * Masks the credentials of a host URL: `http://bob:s3cretpw@host:11434`
 * -> `http://****:****@host:11434`. Each credential (user, password, or a
 * lone token) is masked whole. Query parameters that look like credentials
 * (`?token=`, `?api_key=`) are masked the same way. A URL without
 * credentials comes back unchanged.
 */
export function maskHost(url: string): string {
  if (typeof url !== 'string') return '';
  const schemeEnd = url.indexOf('://');
  const prefix = schemeEnd >= 0 ? url.slice(0, schemeEnd + 3) : '';
  const rest = schemeEnd >= 0 ? url.slice(schemeEnd + 3) : url;

  const at = userInfoEnd(rest);
  const masked = at < 0 ? rest : maskUserInfo(rest.slice(0, at)) + rest.slice(at);
  return prefix + maskSecretParams(masked);
}

/** A URL inside free text: scheme, `://`, and everything up to whitespace or a quote. */
const URL_IN_TEXT = /[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`]+/gi;

/**
 * Free text (an error message, a file, a prompt) with every URL in it
 * masked as `maskHost` masks one: credentials in a URL are the secret most
 * often pasted into text that then travels further than its author meant.
 */
export function maskUrlsInText(text: string): string {
  return text.replace(URL_IN_TEXT, (url) => maskHost(url));
}

/**
 * Index of the `@` that ends the user-info, or -1. As in the WHATWG URL
 * parser, the authority ends at the first `/ ? # \` and the user-info at its
 * last `@`. A password with an unescaped `/` breaks that rule; when the
 * authority then fails to look like `host[:port]`, the last `@` anywhere is
 * taken instead, masking too much rather than leaking the secret.
 */
function userInfoEnd(rest: string): number {
  const authorityEnd = firstIndexOfAny(rest, '/?#\\');
  const authority = rest.slice(0, authorityEnd);
  const at = authority.lastIndexOf('@');
  if (at >= 0) return at;
  if (!rest.includes('@') || looksLikeHostAndPort(authority)) return -1;
  return rest.lastIndexOf('@');
}

function looksLikeHostAndPort(authority: string): boolean {
  return /^(?:\[[0-9a-fA-F:.]+\]|[^:@\s]+)(?::\d*)?$/.test(authority);
}

function firstIndexOfAny(text: string, chars: string): number {
  for (let i = 0; i < text.length; i++) {
    if (chars.includes(text.charAt(i))) return i;
  }
  return text.length;
}

function maskUserInfo(userInfo: string): string {
  const colon = userInfo.indexOf(':');
  if (colon < 0) return maskSecret(userInfo);
  return `${maskSecret(userInfo.slice(0, colon))}:${maskSecret(userInfo.slice(colon + 1))}`;
}

function maskSecretParams(text: string): string {
  const queryStart = text.indexOf('?');
  if (queryStart < 0) return text;
  const hashStart = text.indexOf('#', queryStart);
  const queryEnd = hashStart < 0 ? text.length : hashStart;
  const query = text
    .slice(queryStart + 1, queryEnd)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq < 0 || !SECRET_PARAM.test(pair.slice(0, eq))) return pair;
      return pair.slice(0, eq + 1) + maskSecret(pair.slice(eq + 1));
    })
    .join('&');
  return `${text.slice(0, queryStart + 1)}${query}${text.slice(queryEnd)}`;
}
