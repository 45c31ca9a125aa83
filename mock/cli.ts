// `npm run mock -- [--port N] [--defect NAME]... [--variant NAME]... [--list-defects] [--list-variants]`:
// serves the mock on 127.0.0.1. --port 0 picks a free port. A defect mode makes the mock break one requirement
// on purpose (mock/defects.ts); a variant shows behaviour the contract allows (mock/variants.ts). Both repeat,
// or take comma-separated names.
import { DEFECTS, formatDefects, isDefectName, type DefectName } from './defects.ts';
import { startMockServer } from './server.ts';
import { ALL_VARIANTS, formatVariants, isVariantName, type VariantName } from './variants.ts';

const USAGE = `usage: npm run mock -- [--port N] [--defect NAME]... [--variant NAME]... [--list-defects] [--list-variants]
  --port N          N = 0 picks a free port; default 8787
  --defect NAME     break one requirement on purpose (${DEFECTS.length} modes; see --list-defects); repeatable, or NAME,NAME
  --variant NAME    a legal variant of the contract (${ALL_VARIANTS.length}; see --list-variants); repeatable, or NAME,NAME
  --slow-ms N       with --variant slow: wait N ms before every answer's headers (default 3000)
  --slow-event-ms N with --variant slow: wait N ms before every stream event (default 100)`;

interface Args {
  port: number;
  defects: DefectName[];
  variants: VariantName[];
  slow: { headersMs?: number; eventMs?: number };
}

function fail(message: string): never {
  console.error(message);
  process.exit(2);
}

function parseArgs(argv: string[]): Args {
  const args: Args = { port: 8787, defects: [], variants: [], slow: {} };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const eq = a.indexOf('=');
    const flag = a.startsWith('--') && eq > 0 ? a.slice(0, eq) : a;
    const inline = a.startsWith('--') && eq > 0 ? a.slice(eq + 1) : undefined;
    const value = (): string => inline ?? argv[++i] ?? fail(`${flag} needs a value\n${USAGE}`);
    switch (flag) {
      case '--port':
      case '-p': {
        const v = value();
        if (!/^\d+$/.test(v) || Number(v) > 65535) fail(`--port needs an integer from 0 to 65535 (got ${v})`);
        args.port = Number(v);
        break;
      }
      case '--slow-ms':
      case '--slow-event-ms': {
        const v = value();
        if (!/^\d+$/.test(v) || Number(v) > 600_000) fail(`${flag} needs an integer from 0 to 600000 (got ${v})`);
        args.slow[flag === '--slow-ms' ? 'headersMs' : 'eventMs'] = Number(v);
        break;
      }
      case '--defect':
        for (const name of value().split(',').map((n) => n.trim()).filter(Boolean)) {
          if (!isDefectName(name)) fail(`unknown defect "${name}"; npm run mock -- --list-defects lists them`);
          args.defects.push(name);
        }
        break;
      case '--variant':
        for (const name of value().split(',').map((n) => n.trim()).filter(Boolean)) {
          if (!isVariantName(name)) fail(`unknown variant "${name}"; npm run mock -- --list-variants lists them`);
          args.variants.push(name);
        }
        break;
      case '--list-defects':
        console.log(`${DEFECTS.length} defect modes (name, the requirement it breaks, section, what it does):\n${formatDefects()}`);
        process.exit(0);
      case '--list-variants':
        console.log(`${ALL_VARIANTS.length} legal variants:\n${formatVariants()}`);
        process.exit(0);
      case '--help':
      case '-h':
        console.log(USAGE);
        process.exit(0);
      default:
        fail(`unknown argument: ${a}\n${USAGE}`);
    }
  }
  return args;
}

const args = parseArgs(process.argv.slice(2));
const server = await startMockServer({
  port: args.port,
  ...(args.defects.length > 0 ? { defect: args.defects } : {}),
  ...(args.variants.length > 0 ? { variant: args.variants } : {}),
  ...(Object.keys(args.slow).length > 0 ? { slow: args.slow } : {}),
});
const modes = [...args.defects.map((d) => `defect ${d}`), ...args.variants.map((v) => `variant ${v}`)];
console.log(`mock listening on ${server.url}${modes.length > 0 ? ` (${modes.join(', ')})` : ''}`);

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
