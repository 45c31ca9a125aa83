// The page's calls to its server: every URL is relative, so it carries the token in its path (the page's own folder).

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

async function answer<T>(res: Response): Promise<T> {
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  if (!res.ok) throw new ApiError(res.status, typeof body === 'object' && body && 'error' in body ? String((body as { error: unknown }).error) : String(body).trim());
  return body as T;
}

export async function get<T>(route: string, query: Record<string, string> = {}): Promise<T> {
  const q = new URLSearchParams(query).toString();
  return answer<T>(await fetch(`api/${route}${q ? `?${q}` : ''}`, { cache: 'no-store' }));
}

export async function getText(route: string): Promise<string> {
  const res = await fetch(`api/${route}`, { cache: 'no-store' });
  if (!res.ok) throw new ApiError(res.status, await res.text());
  return res.text();
}

export async function post<T>(route: string, body: unknown = {}): Promise<T> {
  return answer<T>(await fetch(`api/${route}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }));
}

/** The server's event stream: `runs` (every run's record, when one changes), `live` (a batch of a run's progress). */
export function events(on: Record<string, (data: unknown) => void>, onState: (open: boolean) => void): EventSource {
  const source = new EventSource('api/events');
  for (const [name, handler] of Object.entries(on)) source.addEventListener(name, (e) => handler(JSON.parse((e as MessageEvent<string>).data)));
  source.onopen = () => onState(true);
  source.onerror = () => onState(false);
  return source;
}
