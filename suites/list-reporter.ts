// The reporter of `chatconform run --list` (cli/selection.ts): Playwright's listing of the suite, one JSON line per
// test to the file CHATCONFORM_LIST_FILE names, as it is found. Playwright's JSON reporter writes the whole listing as
// one document to stdout, which the CLI had to hold whole (a 1,000-model matrix outgrew its 64 MB buffer); a line per
// test is written and read a piece at a time, so nothing bounds the listing but the disk.
import { closeSync, openSync, writeSync } from 'node:fs';
import path from 'node:path';
import type { FullConfig, Reporter, Suite } from '@playwright/test/reporter';
import { REQUIREMENT_ANNOTATION } from '../judge/checker.ts';
import { JUDGE_ANNOTATION } from '../judge/entry.ts';
import { LIST_FILE_ENV, type ListedLine } from '../run/suite-listing.ts';

export default class ListReporter implements Reporter {
  private rootDir = '';

  onBegin(config: FullConfig, suite: Suite): void {
    this.rootDir = config.rootDir;
    const file = process.env[LIST_FILE_ENV];
    if (!file) throw new Error(`${LIST_FILE_ENV} is not set: this reporter writes the listing to the file it names`);
    const fd = openSync(file, 'w');
    try {
      // A test of several projects is one line, as Playwright's own listing has one spec for it.
      const seen = new Set<string>();
      for (const test of suite.allTests()) {
        const titles = [test.title];
        // An anonymous block (the slot of a run of one target: run/slots.ts) is no part of a title.
        for (let s: Suite | undefined = test.parent; s && s.type === 'describe'; s = s.parent) if (s.title) titles.unshift(s.title);
        const described = (type: string) => [...new Set(test.annotations.filter((a) => a.type === type && a.description).map((a) => a.description!))];
        const entry: ListedLine = {
          file: path.relative(this.rootDir, test.location.file).split(path.sep).join('/'),
          line: test.location.line,
          titles,
          ids: described(REQUIREMENT_ANNOTATION),
          judges: described(JUDGE_ANNOTATION),
          tags: test.tags.map((t) => (t.startsWith('@') ? t : `@${t}`)),
          annotations: test.annotations.map((a) => ({ type: a.type, ...(a.description !== undefined ? { description: a.description } : {}) })),
        };
        const text = JSON.stringify(entry);
        if (seen.has(text)) continue;
        seen.add(text);
        writeSync(fd, `${text}\n`);
      }
    } finally {
      closeSync(fd);
    }
  }

  printsToStdio(): boolean {
    return false;
  }
}
