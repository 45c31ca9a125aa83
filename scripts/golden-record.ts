// (Re)writes the `expect` of golden files (mock/golden/<area>/<name>.json) from the live mock, over node:http.
//   npx tsx scripts/golden-record.ts                 every file
//   npx tsx scripts/golden-record.ts errors/ stream/text   only files whose name contains one of these
// A recording is a proposal, not a verdict: read every changed answer against the contract and mock/README.md
// (git diff) before committing it. What it keeps from the file: the narrative, options and request; the names of
// the headers listed; whether the raw body is asserted (`raw` present) and whether key order is (`keyOrder`).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startMockServer } from '../mock/server.ts';
import { eventPayloads, isEventStream, mockOptionsOf, send } from './golden/exchange.ts';
import { loadGoldenFiles, optionsKey, type GoldenExpect, type GoldenFile, type Json } from './golden/format.ts';
import { formatGolden, RECORDED_HEADERS } from './golden/write.ts';

async function record(files: GoldenFile[]): Promise<void> {
  const groups = new Map<string, GoldenFile[]>();
  for (const f of files) {
    const k = optionsKey(f.exchange.options);
    groups.set(k, [...(groups.get(k) ?? []), f]);
  }
  for (const group of groups.values()) {
    const server = await startMockServer({ port: 0, ...mockOptionsOf(group[0]!.exchange.options) });
    try {
      for (const f of group) {
        const observed = await send(f.exchange, server.url);
        const old = f.exchange.expect;
        const headers: Record<string, string | null> = {};
        const names = new Set<string>([...Object.keys(old.headers), ...RECORDED_HEADERS]);
        for (const name of names) {
          const v = observed.headers.get(name);
          if (v !== null || name in old.headers) headers[name] = v;
        }
        const expect: GoldenExpect = { status: observed.status, headers };
        if (old.keyOrder) expect.keyOrder = true;
        // A file that asserts the raw text alone (a body that is neither JSON nor a stream, or none) keeps it so.
        const rawOnly = old.raw !== undefined && old.body === undefined && old.events === undefined;
        if (rawOnly) {
          // only the raw text, below
        } else if (isEventStream(observed.headers)) expect.events = eventPayloads(observed.text);
        else expect.body = JSON.parse(observed.text) as Json;
        if (old.raw !== undefined) expect.raw = observed.text;
        writeFileSync(f.file, formatGolden({ ...f.exchange, expect }), 'utf8');
        console.log(`${f.name}: ${observed.status}`);
      }
    } finally {
      await server.close();
    }
  }
}

async function main(args: string[]): Promise<void> {
  const files = loadGoldenFiles().filter((f) => args.length === 0 || args.some((a) => f.name.includes(a)));
  await record(files);
  console.log(`recorded ${files.length} golden file(s); now read the diff against the contract`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await main(process.argv.slice(2));
}
