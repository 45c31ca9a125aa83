// `chatconform requirements [--id ID] [--search WORDS]`: the catalog, one line per record, or one record whole.
import { Command } from 'commander';
import { CONTRACT, getRequirement, isKnownRequirement, requirements, type Requirement } from '../spec/requirements/index.ts';
import { UsageError } from './usage.ts';

function line(r: Requirement): string {
  return `${r.id.padEnd(11)}${r.level.padEnd(7)}§${r.section.padEnd(6)}${r.check.padEnd(12)}${r.statement}`;
}

function whole(r: Requirement): string {
  const title = CONTRACT.sections[r.section];
  return [
    `${r.id}  ${r.kind === 'observation' ? 'observation (recorded, never judged)' : r.level}`,
    `section   ${r.section}${title ? ` ${title}` : ''}`,
    `check     ${r.check}`,
    `statement ${r.statement}`,
    `quote     ${r.quote}`,
    ...(r.sameAs ? [`same as   ${r.sameAs} (judged and counted there)`] : []),
    '',
  ].join('\n');
}

/** Records whose ID, statement or quote holds every one of the words (case-insensitive). */
export function searchRequirements(words: readonly string[]): Requirement[] {
  const wanted = words.map((w) => w.toLowerCase());
  return requirements.filter((r) => {
    const text = `${r.id} ${r.statement} ${r.quote}`.toLowerCase();
    return wanted.every((w) => text.includes(w));
  });
}

export function requirementsCommand(): Command {
  return new Command('requirements')
    .description('print the requirements catalog (one line per record), one record whole (--id), or the records matching words (--search)')
    .option('--id <ID...>', 'print these records whole')
    .option('--search <words...>', 'records whose ID, statement or quote contains every word')
    .action((opts: { id?: string[]; search?: string[] }) => {
      if (opts.id && opts.search) throw new UsageError('give --id or --search, not both');
      if (opts.id) {
        const unknown = opts.id.filter((id) => !isKnownRequirement(id));
        if (unknown.length > 0) throw new UsageError(`unknown requirement ID ${unknown.join(', ')}; chatconform requirements lists them`);
        process.stdout.write(opts.id.map((id) => whole(getRequirement(id))).join('\n'));
        return;
      }
      const rows = opts.search ? searchRequirements(opts.search) : [...requirements];
      process.stdout.write(`${rows.map(line).join('\n')}${rows.length > 0 ? '\n' : ''}${rows.length} of ${requirements.length} records (contract ${CONTRACT.file}, sha256 ${CONTRACT.sha256.slice(0, 12)}…)\n`);
    });
}
