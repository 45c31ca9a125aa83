// Starting a worker thread from a module beside the caller: JavaScript once built; in a clone TypeScript, which the
// worker loads through tsx's loader as its parent was loaded (registered first by a one-line bootstrap: `--import`
// alone does not reach a worker's entry). Shared by the mock's parse thread and the proxy's judging thread.
import { Worker } from 'node:worker_threads';

/** A worker running `name` (without extension), a module in the folder of `callerUrl` (the caller's import.meta.url). */
export function startWorker(callerUrl: string, name: string, workerData?: unknown): Worker {
  if (!callerUrl.endsWith('.ts')) return new Worker(new URL(`./${name}.js`, callerUrl), { workerData });
  const entry = new URL(`./${name}.ts`, callerUrl).href;
  const tsx = import.meta.resolve('tsx/esm/api');
  const bootstrap = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(bootstrap, { eval: true, workerData });
}
