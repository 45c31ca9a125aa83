// The report folder is checked before anything runs: a run of minutes that cannot write its reports at the end (a
// container whose user does not own the mounted folder) is a setup mistake found in a second.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setupError } from './setup-messages.ts';

/**
 * Writes a file in `dir` (creating the folders it takes, and removing them and the file again: the reports create
 * them when they are written); a folder this user cannot write is a SetupError.
 */
export function checkReportDirWritable(dir: string): void {
  const probe = path.join(dir, `.chatconform-write-check-${process.pid}`);
  let created: string | undefined;
  try {
    created = mkdirSync(dir, { recursive: true });
    writeFileSync(probe, '');
    rmSync(probe, { force: true });
    if (created) rmSync(created, { recursive: true, force: true });
  } catch (err) {
    // "EACCES: permission denied, mkdir '/reports'": the code and its words, the path is said once already.
    const reason = (err as Error).message.split(/,\s*\w+\s+'/)[0]!.split('\n')[0]!;
    throw setupError('reportDirUnwritable', { dir, reason });
  }
}
