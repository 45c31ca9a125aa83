// `npm run mock -- --port N`: serves the mock on 127.0.0.1. --port 0 picks a free port.
import { startMockServer } from './server.ts';

function parsePort(argv: string[]): number {
  let port = 8787;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    let v: string | undefined;
    if (a === '--port' || a === '-p') v = argv[++i];
    else if (a.startsWith('--port=')) v = a.slice('--port='.length);
    else if (a === '--help' || a === '-h') {
      console.log('usage: npm run mock -- [--port N]   (N = 0 picks a free port; default 8787)');
      process.exit(0);
    } else {
      console.error(`unknown argument: ${a}`);
      process.exit(2);
    }
    if (v === undefined || !/^\d+$/.test(v) || Number(v) > 65535) {
      console.error(`--port needs an integer from 0 to 65535 (got ${v ?? 'nothing'})`);
      process.exit(2);
    }
    port = Number(v);
  }
  return port;
}

const server = await startMockServer({ port: parsePort(process.argv.slice(2)) });
console.log(`mock listening on ${server.url}`);

let closing = false;
const stop = (): void => {
  if (closing) return;
  closing = true;
  server.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
