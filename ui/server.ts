// `chatconform ui`'s server: the page (ui/static/, ui/app/), its JSON API and its event stream, on loopback by default.
// Every request passes the guard first (ui/guard.ts: the per-launch token, Host, Origin); every answer carries the
// security headers (a Content-Security-Policy with no inline script). Live updates are Server-Sent Events fed by the
// engine's events of the run going (ui/runs.ts, ui/live.ts), read and folded on a timer and sent as one batch per
// tick: a run of thousands of tests sends a few messages a second, each with only the rows that changed.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { compareReports } from '../report/compare.ts';
import { BUILTIN_PROFILES, kitPackage } from '../run/config.ts';
import { compareSections, CONTRACT, requirements } from '../spec/requirements/index.ts';
import { targetRequirements } from '../report/results.ts';
import { checkRequest, isLoopback, SECURITY_HEADERS } from './guard.ts';
import { History } from './history.ts';
import { BusyError, RequestError, Runs } from './runs.ts';
import { appFile } from './static-files.ts';
import { evidenceView, reportView } from './view.ts';

export interface ClientScenarioInfo {
  id: string;
  title: string;
  requirements: readonly string[];
}

export interface UiServerOptions {
  port?: number;
  host?: string;
  /** Where the runs' reports go (each run in ui/<id>/) and whose reports the history lists. */
  reportDir: string;
  /** The runs' environment (default this process's): a key may be named by one of its variables. */
  env?: NodeJS.ProcessEnv;
  /** This server's own lines (default: stdout). */
  say?: (line: string) => void;
  /** The client scenarios, for the page's client runs (the CLI passes client/'s). */
  clientScenarios?: readonly ClientScenarioInfo[];
  /** The batch interval of live updates (default 300 ms). */
  batchMs?: number;
}

export interface UiServer {
  /** The page's URL, with the token. */
  url: string;
  port: number;
  token: string;
  /** This server's scratch folder (the runs' event files), removed on close. */
  scratchDir: string;
  close(): Promise<void>;
}

const MAX_BODY = 64 * 1024;

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function send(res: http.ServerResponse, status: number, type: string, body: string | Buffer, extra: Record<string, string> = {}): void {
  res.writeHead(status, { ...SECURITY_HEADERS, 'content-type': type, ...extra });
  res.end(body);
}

const json = (res: http.ServerResponse, status: number, value: unknown) => send(res, status, 'application/json; charset=utf-8', JSON.stringify(value));

async function bodyOf(req: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req as AsyncIterable<Buffer>) {
    size += c.length;
    if (size > MAX_BODY) throw new HttpError(413, `a request body is at most ${MAX_BODY} bytes`);
    chunks.push(c);
  }
  let body: unknown;
  try {
    body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
  } catch {
    throw new HttpError(400, 'the body is not JSON');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new HttpError(400, 'the body is not a JSON object');
  return body;
}

/** The catalog as the page's tree reads it: sections with their titles, the records a target is judged on. */
function catalogView(scenarios: readonly ClientScenarioInfo[]) {
  const judged = targetRequirements(requirements);
  const sections = Object.entries(CONTRACT.sections)
    .sort(([a], [b]) => compareSections(a, b))
    .map(([number, title]) => ({ number, title }));
  return {
    sections,
    requirements: judged.map((r) => ({ id: r.id, section: r.section, level: r.level, kind: r.kind, check: r.check, statement: r.statement })),
    profiles: Object.keys(BUILTIN_PROFILES),
    scenarios,
  };
}

export async function startUiServer(opts: UiServerOptions): Promise<UiServer> {
  const host = opts.host ?? '127.0.0.1';
  const token = randomBytes(24).toString('base64url');
  const reportDir = path.resolve(opts.reportDir);
  const scratchDir = mkdtempSync(path.join(os.tmpdir(), 'chatconform-ui-'));
  const say = opts.say ?? ((line: string) => process.stdout.write(`chatconform ui: ${line}\n`));
  const history = new History(reportDir);
  const streams = new Set<http.ServerResponse>();
  const broadcast = (event: string, data: unknown) => {
    const frame = `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
    for (const s of streams) s.write(frame);
  };
  const runs = new Runs({ reportDir, scratchDir, history, env: opts.env ?? process.env, say, onChange: () => broadcast('runs', runs.list()) });
  const scenarios = opts.clientScenarios ?? [];
  let port = 0;

  const api = async (req: http.IncomingMessage, res: http.ServerResponse, route: string, query: URLSearchParams): Promise<void> => {
    const method = req.method ?? 'GET';
    const env = opts.env ?? process.env;
    if (method === 'GET' && route === '/api/state') {
      return json(res, 200, { kit: kitPackage(), reportDir, runs: runs.list(), keyVariable: { name: 'CONFORMANCE_API_KEY', set: Boolean(env.CONFORMANCE_API_KEY) } });
    }
    if (method === 'GET' && route === '/api/catalog') return json(res, 200, catalogView(scenarios));
    if (method === 'GET' && route === '/api/env') {
      const name = query.get('name') ?? '';
      return json(res, 200, { name, set: /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && Boolean(env[name]) });
    }
    if (method === 'GET' && route === '/api/history') return json(res, 200, history.list());
    if (method === 'GET' && route === '/api/report') {
      const key = query.get('key') ?? '';
      const live = runs.liveOf(key);
      if (live) return json(res, 200, { live: true, key, snapshot: live.snapshot() });
      const report = history.report(key);
      if (!report) throw new HttpError(404, 'no report of that run in the report folder');
      return json(res, 200, { live: false, ...reportView(key, report) });
    }
    if (method === 'GET' && route === '/api/evidence') {
      const key = query.get('key') ?? '';
      const id = query.get('id') ?? '';
      const live = runs.liveOf(key);
      const report = live ? live.current() : history.report(key);
      const view = evidenceView(id, report?.requirements.find((r) => r.id === id), report?.rootCauses ?? [], live !== undefined);
      if (!view) throw new HttpError(404, `no requirement ${id.slice(0, 40)} in that run or the catalog`);
      return json(res, 200, view);
    }
    if (method === 'GET' && route === '/api/compare') {
      const before = history.report(query.get('old') ?? '');
      const after = history.report(query.get('new') ?? '');
      if (!before || !after) throw new HttpError(404, 'both runs must have a report in the report folder');
      return json(res, 200, compareReports(before, after));
    }
    if (method === 'GET' && route === '/api/runs') return json(res, 200, runs.list());
    if (method === 'POST' && route === '/api/runs') return json(res, 201, runs.startServer((await bodyOf(req)) as never));
    if (method === 'POST' && route === '/api/client-runs') return json(res, 201, runs.startClient((await bodyOf(req)) as never));
    const stop = /^\/api\/runs\/([\w-]+)\/stop$/.exec(route);
    if (method === 'POST' && stop) return json(res, 200, runs.stop(stop[1]!));
    const output = /^\/api\/runs\/([\w-]+)\/output$/.exec(route);
    if (method === 'GET' && output) {
      const text = runs.output(output[1]!);
      if (text === undefined) throw new HttpError(404, 'no such run');
      return send(res, 200, 'text/plain; charset=utf-8', text);
    }
    if (method === 'GET' && route === '/api/events') return openStream(res);
    throw new HttpError(404, `no ${method} ${route}`);
  };

  const openStream = (res: http.ServerResponse): void => {
    res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': 'text/event-stream; charset=utf-8', connection: 'keep-alive' });
    res.write(`retry: 2000\nevent: runs\ndata: ${JSON.stringify(runs.list())}\n\n`);
    streams.add(res);
    res.on('close', () => streams.delete(res));
  };

  const server = http.createServer((req, res) => {
    const checked = checkRequest({ token, port, host }, req.method ?? 'GET', req.url ?? '/', req.headers);
    if (!checked.ok) return send(res, checked.status, 'text/plain; charset=utf-8', `${checked.message}\n`);
    // The app's relative URLs need the token's folder: `/TOKEN` becomes `/TOKEN/`.
    if (!/^\/[^/?#]+\//.test(req.url ?? '')) return send(res, 308, 'text/plain; charset=utf-8', '', { location: `/${token}/` });
    const url = new URL(req.url ?? '/', 'http://ui.invalid');
    const route = checked.path;
    void (async () => {
      try {
        if (route.startsWith('/api/')) return await api(req, res, route, url.searchParams);
        if (req.method !== 'GET' && req.method !== 'HEAD') throw new HttpError(405, 'the page is read with GET');
        const file = await appFile(route);
        if (!file) throw new HttpError(404, 'no such file');
        send(res, 200, file.type, file.body);
      } catch (err) {
        const status = err instanceof HttpError ? err.status : err instanceof RequestError ? 400 : err instanceof BusyError ? 409 : 500;
        if (!res.headersSent) json(res, status, { error: status === 500 ? `the UI server failed: ${(err as Error).message}` : (err as Error).message });
        else res.end();
      }
    })();
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => resolve());
  });
  port = (server.address() as { port: number }).port;
  const batch = setInterval(() => {
    for (const { id, delta } of runs.poll()) broadcast('live', { id, key: runs.record(id)?.key, delta });
  }, opts.batchMs ?? 300);
  const heartbeat = setInterval(() => {
    for (const s of streams) s.write(': keep-alive\n\n');
  }, 15_000);
  const shown = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  if (!isLoopback(host)) say(`listening on ${host}, not loopback: whoever reaches it with the token can start runs and client commands on this machine`);
  return {
    url: `http://${shown}:${port}/${token}/`,
    port,
    token,
    scratchDir,
    close: async () => {
      clearInterval(batch);
      clearInterval(heartbeat);
      await runs.closeAll();
      for (const s of streams) s.end();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      rmSync(scratchDir, { recursive: true, force: true });
    },
  };
}
