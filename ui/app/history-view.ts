// The runs in the report folder, the latest first; each opens in the Run tab.
import type { HistoryEntry } from '../view.ts';
import { byId, clear, h, pill } from './dom.ts';

export function renderHistory(entries: readonly HistoryEntry[], onOpen: (e: HistoryEntry) => void): void {
  const body = byId('history');
  clear(body);
  if (entries.length === 0) body.append(h('tr', {}, h('td', { colspan: '6', class: 'muted' }, 'No report in the report folder yet.')));
  for (const e of entries) {
    const open = h('button', { type: 'button', 'data-key': e.key }, 'Open');
    open.addEventListener('click', () => onOpen(e));
    body.append(
      h(
        'tr',
        { 'data-key': e.key },
        h('td', {}, new Date(e.startedAt).toLocaleString()),
        h('td', {}, h('div', {}, e.subject), h('div', { class: 'muted' }, `${e.key}${e.selection ? ` · ${e.selection}` : ''}`)),
        h('td', {}, pill(e.verdict)),
        h('td', {}, e.mustFailed),
        h('td', {}, e.tests),
        h('td', {}, open),
      ),
    );
  }
}

/** The compare-with choices: every other run, the one before `key` chosen. */
export function fillCompare(entries: readonly HistoryEntry[], key: string | undefined): void {
  const select = byId<HTMLSelectElement>('compare-with');
  clear(select);
  const at = entries.findIndex((e) => e.key === key);
  const others = entries.filter((e) => e.key !== key && !e.client);
  for (const e of others) select.append(h('option', { value: e.key }, `${new Date(e.startedAt).toLocaleString()} · ${e.verdict} · ${e.key}`));
  // The previous run: the first one older than the run shown.
  const previous = at >= 0 ? entries.slice(at + 1).find((e) => !e.client) : others[0];
  if (previous) select.value = previous.key;
  byId<HTMLButtonElement>('compare').disabled = key === undefined || others.length === 0;
}
