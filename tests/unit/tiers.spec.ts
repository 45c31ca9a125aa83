// The tiers of playwright.config.ts hold together: a file of the integration tier that starts the `chatconform`
// command (support/cli-process.ts) runs against the installed kit too (INSTALLED_KIT_FILES), or says why not
// (SOURCES_ONLY_FILES); a new one cannot be left out of the installed pass by forgetting the list.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { repoRoot } from '../../run/config.ts';
import { INSTALLED_KIT_CI_FILES, INSTALLED_KIT_FILES, MATRIX_FILES, SLOW_FILES, SOURCES_ONLY_FILES } from '../../playwright.config.ts';

const dir = path.join(repoRoot, 'tests/integration');
const names = (globs: string[]) => globs.map((g) => g.replace(/^\*\*\//, ''));
const files = readdirSync(dir).filter((f) => f.endsWith('.spec.ts'));
const integration = files.filter((f) => !names([...SLOW_FILES, ...MATRIX_FILES]).includes(f));
/** Starts the command: through chatconformCommand or CliProcesses (support/cli-process.ts). */
const startsCommand = (f: string) => /\bchatconformCommand\(|\bnew CliProcesses\(/.test(readFileSync(path.join(dir, f), 'utf8'));

test('every integration file that starts the chatconform command runs against the installed kit, or says why not', () => {
  const installed = names(INSTALLED_KIT_FILES);
  const sourcesOnly = Object.keys(SOURCES_ONLY_FILES);
  const unlisted = integration.filter(startsCommand).filter((f) => !installed.includes(f) && !sourcesOnly.includes(f));
  expect(unlisted, 'add each to INSTALLED_KIT_FILES, or to SOURCES_ONLY_FILES with the reason (playwright.config.ts)').toEqual([]);
  expect(installed.filter((f) => sourcesOnly.includes(f)), 'in both lists').toEqual([]);
  // Every listed file is an integration file that starts the command.
  for (const f of [...installed, ...sourcesOnly]) {
    expect(integration, `${f}: a file of the integration tier`).toContain(f);
    expect(startsCommand(f), `${f}: starts the chatconform command`).toBe(true);
  }
});

test("CI's part of the installed pass is a part of it", () => {
  expect(names(INSTALLED_KIT_CI_FILES).filter((f) => !names(INSTALLED_KIT_FILES).includes(f))).toEqual([]);
  expect(INSTALLED_KIT_CI_FILES.length).toBeGreaterThan(0);
});
