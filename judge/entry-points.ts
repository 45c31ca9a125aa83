// Every judge entry point (judge/entry.ts), by name: a listing of the suite names the entry points each test declares
// (`judges(judgeStream)` becomes a `judge` annotation naming it), and this turns the names back into the IDs they can
// record: the suite's index (run/test-index/), the Checker's refusal of a record outside a test's index, and
// spec/REQUIREMENTS.md all read it. Collected from the modules' exports, so a new entry point is listed once exported.
import * as acceptance from './acceptance.ts';
import * as answers from './answers.ts';
import * as comparisons from './comparisons.ts';
import * as judgeResponse from './judge-response.ts';
import * as limits from './limits.ts';
import * as routing from './routing.ts';
import * as search from './search.ts';
import * as tokenCaps from './token-caps.ts';
import { isJudgeEntry, type JudgeEntry } from './entry.ts';

const MODULES = { 'judge/acceptance.ts': acceptance, 'judge/answers.ts': answers, 'judge/comparisons.ts': comparisons, 'judge/judge-response.ts': judgeResponse, 'judge/limits.ts': limits, 'judge/routing.ts': routing, 'judge/search.ts': search, 'judge/token-caps.ts': tokenCaps } as const;

/** An entry point and the module that exports it. */
export interface ListedEntry {
  entry: JudgeEntry;
  module: string;
}

function collect(): ReadonlyMap<string, ListedEntry> {
  const out = new Map<string, ListedEntry>();
  for (const [module, exports] of Object.entries(MODULES)) {
    for (const value of Object.values(exports)) {
      if (!isJudgeEntry(value)) continue;
      const seen = out.get(value.name);
      if (seen && seen.entry !== value) throw new Error(`two judge entry points are named ${value.name} (${seen.module}, ${module})`);
      out.set(value.name, { entry: value, module });
    }
  }
  return out;
}

/** Every entry point by its name. */
export const JUDGE_ENTRIES: ReadonlyMap<string, ListedEntry> = collect();

/** The IDs the entry point named `name` can record; a name no entry point has is the kit's bug. */
export function judgeIdsOf(name: string): readonly string[] {
  const e = JUDGE_ENTRIES.get(name);
  if (!e) throw new Error(`no judge entry point is named ${name} (judge/entry-points.ts lists them)`);
  return e.entry.ids;
}
