/** Fetches JSON from our own API; a non-2xx answer becomes an Error carrying the API's message. */
export async function fetchJson<T>(url: string, init?: RequestInit): Promise<T> {
  const res = await fetch(url, { cache: 'no-store', ...init, headers: { accept: 'application/json', ...init?.headers } });
  if (!res.ok) throw new Error(await describeFailure(res));
  return (await res.json()) as T;
}

export async function fetchText(url: string): Promise<string> {
  const res = await fetch(url, { cache: 'no-store' });
  if (!res.ok) throw new Error(await describeFailure(res));
  return res.text();
}

async function describeFailure(res: Response): Promise<string> {
  let detail = '';
  try {
    const body: unknown = await res.json();
    const error = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
    if (error && typeof error.message === 'string') {
      detail = typeof error.code === 'string' ? `${error.code}: ${error.message}` : error.message;
    }
  } catch {
    // Not JSON: the status line says enough.
  }
  return detail || `HTTP ${res.status} ${res.statusText}`.trim();
}
