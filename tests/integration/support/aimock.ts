// @copilotkit/aimock (a devDependency) as a third-party target: the `llmock` bin of the package started as a
// child process in its own process group (support/cli-process.ts), on 127.0.0.1 and a free port, with the fixtures of
// fixtures/third-party/aimock/ and inbound key validation on. Used by tests/integration/third-party-aimock.spec.ts.
//
// What aimock 1.43.0 serves (read from its README and dist/server.js, dist/router.js):
// - POST /v1/chat/completions: the first fixture whose match fits the request answers. Our fixtures answer a
//   call of the suite's declared tools (matched by tool name, only while the current turn has no tool result)
//   and everything else with one fixed text (an empty `match` is aimock's catch-all; it must come last).
// - GET /v1/models: a fixed list { object: "list", data: [{ id, object: "model", created, owned_by }] } built
//   from the fixtures' `match.model` values, or its five DEFAULT_MODELS when no fixture names a model (ours).
// - GET /v1/models/{id}: no route; it falls through to 404 {"error":{"message":"Not found","type":"not_found"}}.
// - Keys: none by default (every request accepted). AIMOCK_API_KEYS turns on inbound validation for every HTTP
//   route, /v1/models included (401 invalid_api_key); only /health, /ready and /metrics stay public.
import path from 'node:path';
import { repoRoot } from '../../../run/config.ts';
import { startProcess } from './cli-process.ts';

/** The `llmock` bin (dist/cli.js): the `aimock` bin has no --fixtures flag. */
export const AIMOCK_CLI = path.join(repoRoot, 'node_modules/@copilotkit/aimock/dist/cli.js');
export const AIMOCK_FIXTURES = path.join(repoRoot, 'fixtures/third-party/aimock/fixtures.json');
/** The only key the started server accepts (a test key, not a secret). */
export const AIMOCK_API_KEY = 'chatconform-aimock-key-0123456789abcdef';

export interface RunningAimock {
  url: string;
  pid: number;
  apiKey: string;
  /** The tail of the server's output, for failure messages. */
  output(): string;
  /** Stops the whole process group: SIGTERM, then SIGKILL if it has not exited within 5 s. */
  stop(): Promise<void>;
}

export interface AimockOptions {
  fixtures?: string;
  /** How long to wait for the server to answer GET /health. */
  startTimeoutMs?: number;
}

const LISTENING = /listening on (http:\/\/127\.0\.0\.1:\d+)/;

export async function startAimock(opts: AimockOptions = {}): Promise<RunningAimock> {
  const startTimeoutMs = opts.startTimeoutMs ?? 20_000;
  const deadline = Date.now() + startTimeoutMs;
  const server = await startProcess(process.execPath, [AIMOCK_CLI, '--host', '127.0.0.1', '--port', '0', '--fixtures', opts.fixtures ?? AIMOCK_FIXTURES, '--log-level', 'info'], {
    env: { ...process.env, AIMOCK_API_KEYS: AIMOCK_API_KEY, FORCE_COLOR: '0' },
    ready: (out) => LISTENING.exec(out)?.[1],
    timeoutMs: startTimeoutMs,
    // Bounded: aimock logs every request at info level; only the last 64 kB are kept.
    keepChars: 65_536,
  });
  let hasExited = false;
  void server.ended.then(() => (hasExited = true));
  try {
    // Listening is not yet serving: wait for GET /health.
    while (Date.now() < deadline && !hasExited) {
      const ok = await fetch(`${server.url}/health`, { signal: AbortSignal.timeout(1_000) }).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) return { url: server.url, pid: server.pid, apiKey: AIMOCK_API_KEY, output: server.output, stop: server.close };
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`aimock did not answer GET /health within ${startTimeoutMs} ms${hasExited ? ' (it exited)' : ''}; its output:\n${server.output().slice(-3000)}`);
  } catch (err) {
    await server.close();
    throw err;
  }
}
