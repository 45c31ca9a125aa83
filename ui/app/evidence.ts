// A requirement opened: the contract's statement, section and words, the run's status and why, and each finding with
// its exchange (the request, the response, a stream's events one by one) and the curl that replays it (the key as
// $CONFORMANCE_API_KEY: the kit never writes a key into a curl).
import type { EvidenceView } from '../view.ts';
import type { EvidenceItem, ReportExchange } from '../../report/results.ts';
import { append, byId, clear, copyText, duration, h, pill } from './dom.ts';

function pretty(body: string): string {
  const t = body.trim();
  if (t.startsWith('{') || t.startsWith('[')) {
    try {
      return JSON.stringify(JSON.parse(t), null, 2);
    } catch {
      // Not JSON: shown as sent.
    }
  }
  return body;
}

function headerText(headers: Record<string, string>): string {
  return Object.entries(headers)
    .map(([n, v]) => `${n}: ${v}`)
    .join('\n');
}

function isStream(x: ReportExchange): boolean {
  return Object.entries(x.responseHeaders).some(([n, v]) => n.toLowerCase() === 'content-type' && v.toLowerCase().startsWith('text/event-stream'));
}

/** A stream's events, as framed by blank lines (CRLF or LF): shown one by one, as the kit read them. */
function streamEvents(body: string): string[] {
  return body
    .replace(/\r\n?/g, '\n')
    .split(/\n\n+/)
    .filter((e) => e.trim() !== '');
}

function exchangeBlock(x: ReportExchange): HTMLElement {
  const request = h('div', { class: 'half' }, h('h4', {}, 'Request'), h('pre', {}, `${x.method} ${x.url}\n${headerText(x.requestHeaders)}`), x.requestBody !== undefined && x.requestBody !== '' ? h('pre', { class: 'body' }, pretty(x.requestBody)) : null);
  const head = x.status === 0 ? `no response: ${x.error ?? 'the connection failed'}` : `HTTP ${x.status}${x.error ? ` (${x.error})` : ''}\n${headerText(x.responseHeaders)}`;
  const response = h('div', { class: 'half' }, h('h4', {}, 'Response'), h('pre', {}, head));
  if (isStream(x)) {
    const events = streamEvents(x.responseBody);
    response.append(h('h4', {}, `Stream events (${events.length})`), h('ol', { class: 'events' }, ...events.map((e) => h('li', {}, h('pre', {}, e)))));
  } else if (x.responseBody !== '') {
    response.append(h('pre', { class: 'body' }, pretty(x.responseBody)));
  }
  const notes = x.transportEvents?.length ? h('p', { class: 'muted' }, `on the way: ${x.transportEvents.map((e) => `${e.kind}: ${e.message}`).join('; ')}`) : null;
  return h('details', { class: 'exchange', open: true }, h('summary', {}, `${x.method} ${x.url} → ${x.status || 'no response'} (${duration(x.durationMs)})`), notes, h('div', { class: 'halves' }, request, response));
}

export function curlBlock(curl: string): HTMLElement {
  const button = h('button', { type: 'button', class: 'copy' }, 'Copy');
  const text = h('pre', { class: 'curl-text' }, curl);
  button.addEventListener('click', async () => {
    const ok = await copyText(curl);
    button.textContent = ok ? 'Copied' : 'Select and copy';
    if (!ok) getSelection()?.selectAllChildren(text);
  });
  return h('div', { class: 'curl' }, h('h4', {}, 'Replay with curl ', button), text);
}

function finding(item: EvidenceItem): HTMLElement {
  const el = h('div', { class: 'finding' }, h('div', {}, pill(item.status), ' ', h('span', {}, item.test), ' ', h('span', { class: 'muted' }, item.location)));
  if (item.message) el.append(h('p', { class: 'message' }, item.message));
  if (item.observed !== undefined) el.append(h('pre', {}, JSON.stringify(item.observed, null, 2)));
  if (item.exchange) append(el, exchangeBlock(item.exchange), item.exchange.curl ? curlBlock(item.exchange.curl) : null);
  return el;
}

export class EvidencePanel {
  constructor(private readonly onRerun: (id: string) => void) {
    byId('ev-close').addEventListener('click', () => this.close());
  }

  close(): void {
    byId('evidence').hidden = true;
  }

  show(v: EvidenceView): void {
    const body = byId('ev-body');
    clear(body);
    byId('ev-title').replaceChildren(`${v.id} `, pill(v.status));
    const rerun = h('button', { type: 'button', id: 'ev-rerun' }, `Rerun ${v.id}`);
    rerun.addEventListener('click', () => this.onRerun(v.id));
    append(
      body,
      h('p', { class: 'meta' }, `${v.level === 'none' ? 'observation' : v.level} · §${v.section}${v.sectionTitle ? ` ${v.sectionTitle}` : ''} · ${v.check}`),
      h('p', { class: 'statement' }, v.statement),
      v.quote ? h('blockquote', {}, v.quote) : null,
      v.reason ? h('p', { class: 'reason' }, v.reason) : null,
      v.cases ? h('p', { class: 'muted' }, `${v.cases.judged} case(s) judged, ${v.cases.unjudged} not judged`) : null,
      h('div', { class: 'actions' }, rerun, h('span', { class: 'muted' }, ' against the target set on the left')),
    );
    if (v.evidence.length > 0) {
      body.append(h('h3', {}, `Findings (${v.evidence.length}${v.evidenceOmitted ? ` of ${v.evidence.length + v.evidenceOmitted}` : ''})`), ...v.evidence.map(finding));
    }
    if (v.causes.length > 0) body.append(h('h3', {}, 'Root causes naming it'), ...v.causes.map((c) => h('p', {}, `#${c.rank} ${c.deviation}`)));
    if (v.tests.length > 0) body.append(h('h3', {}, `Tests (${v.tests.length})`), h('ul', { class: 'tests' }, ...v.tests.map((t) => h('li', {}, pill(t.status), ' ', t.title, ' ', h('span', { class: 'muted' }, t.location)))));
    byId('evidence').hidden = false;
  }
}
