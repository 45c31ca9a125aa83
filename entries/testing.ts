// `chatconform/testing`: the mock as a client author's test harness, for Vitest, Jest and Playwright test
// (docs/testing.md). `startChatconformMock()` starts the mock on 127.0.0.1 and a free port (or attaches to one
// already running, `{ url }`), and gives typed access to its runtime faults, request journal and scripted
// answers. Everything goes over HTTP through the control API (/_chatconform/...), so a mock in another process
// works the same way.
import { startMockServer, type RunningMockServer, type StartOptions } from '../mock/index.ts';
import type { JournalEntry } from '../mock/harness/journal.ts';
import { CONTROL_ROOT, TEST_ID_HEADER } from '../mock/harness/names.ts';
import type { ScriptDocument } from '../mock/harness/script.ts';
import { MOCK_KEYS, MOCK_MODELS } from '../mock/keys-and-models.ts';

export { TEST_ID_HEADER, CONTROL_ROOT, MOCK_KEYS, MOCK_MODELS };
export type { JournalEntry, ScriptDocument };

/** An active fault as the control API lists it. */
export interface FaultInfo {
  id: string;
  spec: string;
  test_id?: string;
  /** requests it could fire on so far, and those it fired on */
  seen: number;
  fired: number;
}

/** A journal entry, with its body parsed when it is complete JSON. */
export interface RecordedRequest extends JournalEntry {
  json?: unknown;
}

/** A control call the mock refused (a bad fault spec, a bad script): the error body of section 7's shape. */
export class ChatconformControlError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ChatconformControlError';
  }
}

/** Faults, journal and script for one scope: the whole server, or one test (requests carrying its test id). */
export interface HarnessScope {
  /** the test id of this scope; undefined: server-wide */
  readonly testId: string | undefined;
  /** headers a client sends so that its requests belong to this scope ({} server-wide) */
  readonly headers: Readonly<Record<string, string>>;
  readonly faults: {
    /** adds runtime faults (mock/README.md grammar); a bad spec rejects with ChatconformControlError and adds none */
    add(spec: string | readonly string[]): Promise<FaultInfo[]>;
    list(): Promise<FaultInfo[]>;
    remove(id: string): Promise<void>;
    /** removes this scope's faults (server-wide: every fault); resolves to how many */
    clear(): Promise<number>;
  };
  readonly journal: {
    /** the requests recorded in this scope, oldest first (server-wide: all of them); `limit`: the last N */
    entries(filter?: { limit?: number }): Promise<RecordedRequest[]>;
    clear(): Promise<number>;
  };
  readonly script: {
    /** replaces this scope's script (spec/schemas/mock-script.schema.json); a bad one rejects */
    set(script: ScriptDocument): Promise<void>;
    get(): Promise<ScriptDocument | undefined>;
    clear(): Promise<void>;
  };
  /** clears this scope's faults, journal and script */
  reset(): Promise<void>;
}

export interface ChatconformMock extends HarnessScope {
  /** origin, e.g. http://127.0.0.1:43123 */
  readonly url: string;
  /** what a client is given as its base URL: the origin, the prefix if any, and /v1 */
  readonly baseURL: string;
  /** a key of the built-in fixtures with every model (override with `apiKey`) */
  readonly apiKey: string;
  /** the same harness scoped to one test: its faults and script apply only to requests with its `headers` */
  forTest(testId: string): HarnessScope;
  /** stops the mock it started (a mock it attached to with `url` keeps running) */
  close(): Promise<void>;
}

export interface StartChatconformMockOptions extends StartOptions {
  /** attach to a mock already running at this origin instead of starting one */
  url?: string;
  /** the key `apiKey` holds (default MOCK_KEYS.full) */
  apiKey?: string;
  /** scope the returned harness to this test id from the start */
  testId?: string;
}

async function call<T>(origin: string, method: string, path: string, testId: string | undefined, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (testId !== undefined) headers[TEST_ID_HEADER] = testId;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${origin}${CONTROL_ROOT}${path}`, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  const text = await res.text();
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new ChatconformControlError(res.status, 'not_json', `${method} ${CONTROL_ROOT}${path}: the answer is not JSON (status ${res.status}): ${text.slice(0, 200)}`);
  }
  if (!res.ok) {
    const e = (data as { error?: { code?: string; message?: string } }).error;
    throw new ChatconformControlError(res.status, e?.code ?? 'unknown', `${method} ${CONTROL_ROOT}${path}: ${e?.message ?? text.slice(0, 200)}`);
  }
  return data as T;
}

function withJson(e: JournalEntry): RecordedRequest {
  if (e.body === undefined || e.body_truncated) return e;
  try {
    return { ...e, json: JSON.parse(e.body) };
  } catch {
    return e;
  }
}

/** The harness of the mock at `origin`, for one scope. */
export function harnessScope(origin: string, testId?: string): HarnessScope {
  const c = <T>(method: string, path: string, body?: unknown) => call<T>(origin, method, path, testId, body);
  const scope: HarnessScope = {
    testId,
    headers: testId !== undefined ? { [TEST_ID_HEADER]: testId } : {},
    faults: {
      add: async (spec) => (await c<{ faults: FaultInfo[] }>('POST', '/faults', { faults: typeof spec === 'string' ? [spec] : [...spec] })).faults,
      list: async () => (await c<{ faults: FaultInfo[] }>('GET', '/faults')).faults,
      remove: async (id) => {
        await c('DELETE', `/faults/${encodeURIComponent(id)}`);
      },
      clear: async () => (await c<{ cleared: number }>('DELETE', '/faults')).cleared,
    },
    journal: {
      entries: async (filter = {}) => (await c<{ entries: JournalEntry[] }>('GET', `/journal${filter.limit !== undefined ? `?limit=${filter.limit}` : ''}`)).entries.map(withJson),
      clear: async () => (await c<{ cleared: number }>('DELETE', '/journal')).cleared,
    },
    script: {
      set: async (script) => {
        await c('PUT', '/script', script);
      },
      get: async () => (await c<{ script?: ScriptDocument }>('GET', '/script')).script,
      clear: async () => {
        await c('DELETE', '/script');
      },
    },
    reset: async () => {
      await Promise.all([scope.faults.clear(), scope.journal.clear(), scope.script.clear()]);
    },
  };
  return scope;
}

/**
 * Starts the reference mock on 127.0.0.1 and a free port (every option of startMockServer applies: faults,
 * script, catalog, keys, prefix, ...), or attaches to a running one with `{ url }`.
 */
export async function startChatconformMock(opts: StartChatconformMockOptions = {}): Promise<ChatconformMock> {
  const { url: attachTo, apiKey = MOCK_KEYS.full, testId, ...start } = opts;
  let server: RunningMockServer | undefined;
  let origin: string;
  if (attachTo !== undefined) origin = attachTo.replace(/\/+$/, '');
  else {
    server = await startMockServer({ port: 0, ...start });
    origin = server.url;
  }
  let prefix = start.prefix?.replace(/\/+$/, '') ?? '';
  if (attachTo !== undefined) prefix = (await call<{ prefix?: string }>(origin, 'GET', '', undefined)).prefix ?? '';
  return {
    ...harnessScope(origin, testId),
    url: origin,
    baseURL: `${origin}${prefix}/v1`,
    apiKey,
    forTest: (id) => harnessScope(origin, id),
    close: async () => {
      await server?.close();
    },
  };
}
