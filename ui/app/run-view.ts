// The run shown on the right: live while it runs (progress, each requirement's status as its tests end, the root
// causes as they form), then as its report says. A batch from the server changes only the rows it names: a row is one
// element, kept by its ID and updated in place, never the whole table.
import type { LiveDelta } from '../live.ts';
import type { CauseCard, CompareView, ReportView, Row } from '../view.ts';
import { byId, clear, duration, h, pill } from './dom.ts';

const BAD = new Set(['fail', 'warn', 'error']);

function order(a: Row, b: Row): number {
  const pa = a.section.split('.').map(Number);
  const pb = b.section.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? -1) - (pb[i] ?? -1);
    if (d !== 0) return d;
  }
  return a.id.localeCompare(b.id);
}

export class RunView {
  private readonly rows = new Map<string, { el: HTMLTableRowElement; row: Row }>();
  private causesKey = '';
  /** The history key of the run shown. */
  key: string | undefined;
  failed: string[] = [];

  constructor(private readonly onOpen: (id: string) => void) {
    byId('rows').addEventListener('click', (e) => {
      const tr = (e.target as HTMLElement).closest('tr');
      if (tr?.dataset.id) this.onOpen(tr.dataset.id);
    });
    byId('rows').addEventListener('keydown', (e) => {
      const tr = (e.target as HTMLElement).closest('tr');
      if (tr?.dataset.id && (e.key === 'Enter' || e.key === ' ')) {
        e.preventDefault();
        this.onOpen(tr.dataset.id);
      }
    });
    byId('row-filter').addEventListener('input', () => this.filterRows());
  }

  /** A new run (or another of the history) is shown: everything of the last one goes. */
  reset(key: string, head: string): void {
    this.key = key;
    this.failed = [];
    this.rows.clear();
    clear(byId('rows'));
    clear(byId('causes'));
    clear(byId('compare-result'));
    this.causesKey = '';
    byId('run-head').textContent = head;
    byId('verdict').textContent = '';
    byId('verdict').className = '';
    byId('progress-text').textContent = '';
    byId('bar-fill').style.width = '0';
    byId('rows-box').hidden = true;
    byId('causes-box').hidden = true;
  }

  private filterRows(): void {
    const onlyBad = byId<HTMLSelectElement>('row-filter').value === 'bad';
    for (const { el, row } of this.rows.values()) el.hidden = onlyBad && !BAD.has(row.status);
  }

  private putRow(row: Row): void {
    const known = this.rows.get(row.id);
    const cells = [h('td', {}, pill(row.status)), h('td', {}, h('b', {}, row.id)), h('td', {}, row.level === 'none' ? 'obs' : row.level), h('td', {}, row.section), h('td', { class: 'why' }, row.reason ?? '')];
    if (known) {
      known.el.replaceChildren(...cells);
      known.el.dataset.status = row.status;
      known.row = row;
      known.el.hidden = byId<HTMLSelectElement>('row-filter').value === 'bad' && !BAD.has(row.status);
      return;
    }
    const el = h('tr', { 'data-id': row.id, 'data-status': row.status, tabindex: '0', title: `open ${row.id}` }, ...cells);
    // In order: before the first row that sorts after it.
    const next = [...this.rows.values()].filter((r) => order(r.row, row) > 0).sort((a, b) => order(a.row, b.row))[0];
    byId('rows').insertBefore(el, next?.el ?? null);
    this.rows.set(row.id, { el, row });
    el.hidden = byId<HTMLSelectElement>('row-filter').value === 'bad' && !BAD.has(row.status);
  }

  private putRows(rows: readonly Row[]): void {
    if (rows.length === 0) return;
    byId('rows-box').hidden = false;
    if (this.rows.size === 0) {
      // The first batch: built apart and added at once.
      const sorted = [...rows].sort(order);
      const frag = document.createDocumentFragment();
      for (const row of sorted) {
        const el = h('tr', { 'data-id': row.id, 'data-status': row.status, tabindex: '0', title: `open ${row.id}` }, h('td', {}, pill(row.status)), h('td', {}, h('b', {}, row.id)), h('td', {}, row.level === 'none' ? 'obs' : row.level), h('td', {}, row.section), h('td', { class: 'why' }, row.reason ?? ''));
        this.rows.set(row.id, { el, row });
        frag.append(el);
      }
      byId('rows').append(frag);
      this.filterRows();
      return;
    }
    for (const row of rows) this.putRow(row);
  }

  private putCauses(causes: readonly CauseCard[]): void {
    const key = JSON.stringify(causes.map((c) => [c.id, c.rank, c.occurrences, c.requirements.length]));
    if (key === this.causesKey) return;
    this.causesKey = key;
    const box = byId('causes');
    clear(box);
    byId('causes-box').hidden = causes.length === 0;
    for (const c of causes) {
      const card = h(
        'div',
        { class: `cause c-${c.status}`, 'data-id': c.id },
        h('div', {}, h('b', {}, `#${c.rank} `), pill(c.status), ' ', h('b', {}, c.id), ` ${c.level}`),
        h('p', {}, c.deviation),
        h('p', { class: 'muted' }, `${c.occurrences} finding(s) in ${c.tests} test(s)${c.requirements.length > 1 ? `; breaks ${c.requirements.join(', ')}` : ''}${c.blocked.length ? `; left unjudged: ${c.blocked.join(', ')}` : ''}`),
      );
      card.addEventListener('click', () => this.onOpen(c.id));
      box.append(card);
    }
  }

  /** One batch of a live run. */
  applyLive(d: LiveDelta): void {
    const p = d.progress;
    const pct = p.total > 0 ? Math.min(100, Math.round((p.done / p.total) * 100)) : 0;
    byId('bar-fill').style.width = `${pct}%`;
    byId('progress-text').textContent = `${p.done} of ${p.total || '?'} tests · ${duration(p.elapsedMs)} · ${p.mustFailed} MUST failure${p.mustFailed === 1 ? '' : 's'} so far${p.firstResultMs !== undefined ? ` · first result after ${duration(p.firstResultMs)}` : ''}`;
    this.putRows(d.rows);
    this.putCauses(d.causes);
  }

  /** A finished run, as its report says (its rows are the report's: the live ones are replaced). */
  showReport(v: ReportView): void {
    this.failed = v.failed;
    const verdict = byId('verdict');
    verdict.replaceChildren(h('b', {}, v.verdict.toUpperCase()), ` ${v.summary}`);
    verdict.className = `verdict v-${v.verdict}`;
    const t = v.tests;
    byId('bar-fill').style.width = '100%';
    byId('progress-text').textContent = `${t.total} tests (${t.judged} judged${t.unfinished ? `, ${t.unfinished} unfinished` : ''}, ${t.skipped} skipped${t.notRun ? `, ${t.notRun} not run` : ''}) · ${duration(v.durationMs)} · ${v.mustFailed.length} MUST failure${v.mustFailed.length === 1 ? '' : 's'}`;
    const seen = new Set(v.rows.map((r) => r.id));
    for (const [id, r] of this.rows) {
      if (!seen.has(id)) {
        r.el.remove();
        this.rows.delete(id);
      }
    }
    this.putRows(v.rows);
    this.putCauses(v.causes);
  }

  showCompare(c: CompareView): void {
    const box = byId('compare-result');
    clear(box);
    const list = (title: string, changes: CompareView['regressed']) =>
      changes.length === 0 ? null : h('div', {}, h('h3', {}, `${title} (${changes.length})`), h('ul', {}, ...changes.map((x) => h('li', {}, h('b', {}, x.id), ` ${x.level} §${x.section}: ${x.from} → ${x.to}${x.reason ? ` (${x.reason})` : ''}`))));
    box.append(
      h('p', {}, `${c.old.verdict.toUpperCase()} (${c.old.startedAt}) → ${c.new.verdict.toUpperCase()} (${c.new.startedAt})`),
      list('Regressed', c.regressed) ?? '',
      list('Improved', c.improved) ?? '',
      list('Other changes', c.other) ?? '',
      c.regressed.length + c.improved.length + c.other.length === 0 ? h('p', {}, 'Nothing changed between the two runs.') : '',
    );
  }
}
