// Client runs: `chatconform client --command` scenario by scenario. Each scenario's status fills in as it ends; once
// the run's report is written, a row opens to what the client was asked, what it sent (the mock's journal) and what
// it reported.
import type { ScenarioRow } from '../../report/json.ts';
import type { LiveDelta } from '../live.ts';
import type { ReportView } from '../view.ts';
import type { Catalog } from './catalog-tree.ts';
import { byId, clear, duration, h, pill } from './dom.ts';

export class ClientView {
  private readonly rows = new Map<string, HTMLTableRowElement>();

  constructor(private readonly catalog: Catalog) {
    const list = byId('scenario-list');
    for (const s of catalog.scenarios) {
      list.append(h('label', { class: 'req' }, h('input', { type: 'checkbox', 'data-scenario': s.id }), ' ', h('b', {}, s.id), ' ', h('span', { class: 'statement' }, `${s.title} (${s.requirements.join(', ')})`)));
    }
  }

  chosen(): string[] {
    return [...byId('scenario-list').querySelectorAll<HTMLInputElement>('input[data-scenario]:checked')].map((i) => i.dataset.scenario!);
  }

  reset(head: string): void {
    this.rows.clear();
    clear(byId('scenarios'));
    byId('client-head').textContent = head;
    byId('client-verdict').textContent = '';
    byId('client-progress-text').textContent = '';
    byId('client-bar-fill').style.width = '0';
    const chosen = this.chosen();
    for (const s of this.catalog.scenarios.filter((x) => chosen.length === 0 || chosen.includes(x.id))) this.put(s.id, 'pending', s.requirements.join(', '), '');
  }

  private put(id: string, status: string, requirements: string, why: string, detail?: HTMLElement): void {
    const cells = [h('td', {}, pill(status)), h('td', {}, h('b', {}, id)), h('td', {}, requirements), h('td', { class: 'why' }, why, detail ?? null)];
    const known = this.rows.get(id);
    if (known) known.replaceChildren(...cells);
    else {
      const tr = h('tr', { 'data-scenario': id }, ...cells);
      this.rows.set(id, tr);
      byId('scenarios').append(tr);
    }
  }

  applyLive(d: LiveDelta): void {
    const p = d.progress;
    byId('client-bar-fill').style.width = `${p.total ? Math.round((p.done / p.total) * 100) : 0}%`;
    byId('client-progress-text').textContent = `${p.done} of ${p.total || '?'} scenarios · ${duration(p.elapsedMs)}`;
    for (const s of d.scenarios ?? []) {
      const req = this.catalog.scenarios.find((x) => x.id === s.id)?.requirements.join(', ') ?? '';
      this.put(s.id, s.status, req, `${duration(s.durationMs)}; the report tells what it sent once the run ends`);
    }
  }

  showReport(v: ReportView): void {
    const verdict = byId('client-verdict');
    verdict.replaceChildren(h('b', {}, v.verdict.toUpperCase()), ` ${v.summary}`);
    verdict.className = `verdict v-${v.verdict}`;
    byId('client-bar-fill').style.width = '100%';
    for (const s of v.scenarios ?? []) this.put(s.id, s.status, s.requirements.join(', '), s.reason ?? '', detailOf(s));
  }
}

function detailOf(s: ScenarioRow): HTMLElement {
  return h(
    'details',
    { class: 'scenario' },
    h('summary', {}, 'what it was asked, sent and reported'),
    h('h4', {}, 'Asked'),
    h('pre', {}, JSON.stringify(s.instruction, null, 2)),
    h('h4', {}, `Sent (${s.exchanges.length} request${s.exchanges.length === 1 ? '' : 's'})`),
    h('ul', {}, ...s.exchanges.map((x) => h('li', {}, `${x.method} ${x.path} → ${x.status} ${x.outcome}${x.error_code ? ` (${x.error_code})` : ''}`))),
    h('h4', {}, 'Reported'),
    h('pre', {}, s.report ? JSON.stringify(s.report, null, 2) : s.problem ?? 'nothing'),
    h('h4', {}, 'Expected'),
    h('p', {}, s.expected),
  );
}
