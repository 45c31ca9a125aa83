// The global setup of playwright.config.ts: the run's folder for an installed kit (support/installed-kit.ts), removed
// at the end; with CHATCONFORM_KIT=installed, the kit packed and installed there before any test, so that every
// command the tests start is the installed `chatconform` (CHATCONFORM_KIT_PROJECT names an existing install instead).
// The workers inherit the variables set here.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { KIT_PROJECT_ENV, KIT_RUN_DIR_ENV, installedKitAt, kitMode, sharedInstalledKit } from './installed-kit.ts';

export default async function installedKitSetup(): Promise<() => void> {
  const own = process.env[KIT_RUN_DIR_ENV] === undefined;
  const runDir = process.env[KIT_RUN_DIR_ENV] ?? mkdtempSync(path.join(os.tmpdir(), 'chatconform-kit-run-'));
  process.env[KIT_RUN_DIR_ENV] = runDir;
  const teardown = () => {
    if (own) rmSync(runDir, { recursive: true, force: true });
  };
  if (kitMode() === 'installed') {
    try {
      const given = process.env[KIT_PROJECT_ENV];
      const kit = given ? installedKitAt(given) : await sharedInstalledKit();
      process.env[KIT_PROJECT_ENV] = kit.project;
      console.log(`[installed kit] the tests run chatconform ${kit.version} installed in ${kit.project}`);
    } catch (err) {
      teardown();
      throw err;
    }
  }
  return teardown;
}
