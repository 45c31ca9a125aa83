// `--list`, and the check that a partial run runs something: Playwright's own listing of the suite
// (run/suite-listing.ts, through the listing reporter) under the run's environment, so the selection
// (run/selection.ts, from the suite's index) is applied exactly as the run applies it.
import { listSuite as listing, type ListedTest } from '../run/suite-listing.ts';
import { judgeIdsOf } from '../judge/entry-points.ts';
import { CONFORMANCE_CONFIG, playwrightCli } from './kit-files.ts';

export type { ListedTest } from '../run/suite-listing.ts';

/** Every test of the suite, with its declared requirements, as Playwright lists them (no target is contacted). */
export function listSuite(env: NodeJS.ProcessEnv = process.env, filters: readonly string[] = []): ListedTest[] {
  return listing({ playwrightCli: playwrightCli(), config: CONFORMANCE_CONFIG }, env, filters);
}

/** One line per test: where it is, its title, the IDs it declares, and how many more its judge functions can record. */
export function formatListing(tests: readonly ListedTest[]): string {
  const lines = tests.map((t) => {
    const more = new Set(t.judges.flatMap(judgeIdsOf).filter((id) => !t.ids.includes(id))).size;
    const ids = t.ids.length > 0 || more > 0 ? `  [${[...t.ids, ...(more > 0 ? [`+${more} through ${t.judges.join(', ')}`] : [])].join(', ')}]` : '';
    return `${t.file}:${t.line}  ${t.title}${ids}`;
  });
  return `${lines.join('\n')}${lines.length > 0 ? '\n' : ''}${tests.length} test${tests.length === 1 ? '' : 's'} in ${new Set(tests.map((t) => t.file)).size} file(s)\n`;
}
