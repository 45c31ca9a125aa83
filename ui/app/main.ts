// The page: wires the target form, the catalog tree, the run view, the evidence panel, the history and client runs to
// the server's API and its event stream. Nothing is kept in the browser's storage; the key typed in stays in its field
// and goes to the server only with the run it starts.
import type { LiveDelta } from '../live.ts';
import type { KeyInput, RunRecord, SelectionInput, ServerRunRequest, TargetInput } from '../runs.ts';
import type { EvidenceView, HistoryEntry, ReportView } from '../view.ts';
import type { CompareView } from '../view.ts';
import { events, get, getText, post } from './api.ts';
import { CatalogTree, type Catalog } from './catalog-tree.ts';
import { ClientView } from './client-view.ts';
import { byId, h } from './dom.ts';
import { EvidencePanel } from './evidence.ts';
import { fillCompare, renderHistory } from './history-view.ts';
import { RunView } from './run-view.ts';

interface State {
  kit: { name: string; version: string };
  reportDir: string;
  runs: RunRecord[];
  keyVariable: { name: string; set: boolean };
}

type ReportAnswer = ({ live: false } & ReportView) | { live: true; key: string; snapshot: LiveDelta };

const input = (id: string) => byId<HTMLInputElement>(id);
const value = (id: string) => input(id).value.trim();

let runs: RunRecord[] = [];
/** The run shown in the Run tab and in the Client tab (ids of this server's runs), and whether its end was shown. */
let shown: { id: string; ended: boolean } | undefined;
let shownClient: { id: string; ended: boolean } | undefined;
let history: HistoryEntry[] = [];

function keyInput(): KeyInput {
  const from = document.querySelector<HTMLInputElement>('input[name=key-from]:checked')?.value;
  if (from === 'typed') return { from: 'typed', value: input('key-typed').value };
  if (from === 'env') return { from: 'env', name: value('key-env') };
  return { from: 'none' };
}

function targetInput(): TargetInput {
  const wait = value('wait');
  return {
    ...(value('base-url') ? { baseUrl: value('base-url') } : {}),
    ...(value('profile') ? { profile: value('profile') } : {}),
    key: keyInput(),
    ...(byId<HTMLTextAreaElement>('headers').value.trim() ? { headers: byId<HTMLTextAreaElement>('headers').value } : {}),
    ...(wait ? { waitForTarget: Number(wait) } : {}),
  };
}

function selectionInput(tree: CatalogTree): SelectionInput {
  const s = tree.selection();
  const trials = value('trials');
  return {
    ...s,
    ...(value('models') ? { models: value('models') } : {}),
    ...(trials ? { trials: Number(trials) } : {}),
    ...(value('reference') ? { reference: value('reference') } : {}),
  };
}

function busy(): boolean {
  return runs.some((r) => r.state === 'running');
}

function setButtons(): void {
  const going = runs.find((r) => r.state === 'running');
  byId<HTMLButtonElement>('run').disabled = Boolean(going);
  byId<HTMLButtonElement>('client-run').disabled = Boolean(going);
  byId<HTMLButtonElement>('stop').disabled = !(going && going.kind === 'server' && !going.stopping);
  byId<HTMLButtonElement>('client-stop').disabled = !(going && going.kind === 'client' && !going.stopping);
  byId<HTMLButtonElement>('rerun-failed').disabled = Boolean(going) || view.failed.length === 0;
}

function showTab(name: string): void {
  for (const b of document.querySelectorAll<HTMLButtonElement>('button.tab')) b.classList.toggle('on', b.dataset.tab === name);
  for (const t of ['run', 'history', 'client']) byId(`tab-${t}`).hidden = t !== name;
  if (name === 'history') void refreshHistory();
}

async function refreshHistory(): Promise<void> {
  history = await get<HistoryEntry[]>('history');
  renderHistory(history, openHistory);
  fillCompare(history, view.key);
}

async function openHistory(e: HistoryEntry): Promise<void> {
  const answer = await get<ReportAnswer>('report', { key: e.key });
  if (answer.live) return;
  if (e.client) {
    showTab('client');
    shownClient = undefined;
    client.reset(`${e.subject} (${e.key})`);
    client.showReport(answer);
  } else {
    showTab('run');
    shown = undefined;
    view.reset(e.key, `${e.subject} · ${new Date(e.startedAt).toLocaleString()} · ${e.key}`);
    view.showReport(answer);
    byId('output-box').hidden = true;
    fillCompare(history, e.key);
  }
  setButtons();
}

async function start(body: ServerRunRequest): Promise<void> {
  const error = byId('run-error');
  error.textContent = '';
  try {
    const r = await post<RunRecord>('runs', body);
    adopt(r);
  } catch (err) {
    error.textContent = (err as Error).message;
  }
}

/** Shows a run of this server in its tab (a run just started, or one going when the page loaded). */
function adopt(r: RunRecord): void {
  if (!runs.some((x) => x.id === r.id)) runs = [r, ...runs];
  if (r.id === shown?.id || r.id === shownClient?.id) return;
  if (r.kind === 'client') {
    shownClient = { id: r.id, ended: false };
    client.reset(r.command);
    showTab('client');
  } else {
    shown = { id: r.id, ended: false };
    view.reset(r.key, r.command);
    byId('output-box').hidden = true;
    evidence.close();
    showTab('run');
  }
  // Everything so far (the batches that follow name only what changed).
  // A run that ended meanwhile shows its report: a snapshot answered late must not put the live rows back.
  void get<ReportAnswer>('report', { key: r.key }).then((a) => {
    if (a.live && going(r)) (r.kind === 'client' ? client : view).applyLive(a.snapshot);
  });
  setButtons();
}

async function ended(r: RunRecord): Promise<void> {
  const output = await getText(`runs/${r.id}/output`).catch(() => '');
  if (r.kind === 'server') {
    byId('output').textContent = output;
    byId('output-box').hidden = output === '';
  }
  if (!r.verdict) {
    byId(r.kind === 'client' ? 'client-error' : 'run-error').textContent = `The run wrote no report: ${r.refusal ?? `exit ${r.exitCode}`}`;
    return;
  }
  const answer = await get<ReportAnswer>('report', { key: r.key });
  if (answer.live) return;
  if (r.kind === 'client') client.showReport(answer);
  else {
    view.key = r.key;
    view.showReport(answer);
    history = await get<HistoryEntry[]>('history');
    fillCompare(history, r.key);
  }
  setButtons();
}

function onRuns(list: RunRecord[]): void {
  runs = list;
  for (const r of list) {
    if (r.state === 'running') adopt(r);
    const mine = r.kind === 'client' ? shownClient : shown;
    if (mine?.id === r.id && r.state === 'ended' && !mine.ended) {
      mine.ended = true;
      void ended(r);
    }
  }
  setButtons();
}

/** Whether `r` is the run shown in its tab and has not ended (its live rows are still the page's). */
function going(r: Pick<RunRecord, 'id' | 'kind'>): boolean {
  const mine = r.kind === 'client' ? shownClient : shown;
  return mine?.id === r.id && !mine.ended;
}

function onLive(data: { id: string; delta: LiveDelta }): void {
  if (data.id === shown?.id && !shown.ended) view.applyLive(data.delta);
  if (data.id === shownClient?.id && !shownClient.ended) client.applyLive(data.delta);
}

async function openEvidence(id: string): Promise<void> {
  if (!view.key) return;
  try {
    evidence.show(await get<EvidenceView>('evidence', { key: view.key, id }));
  } catch (err) {
    byId('run-error').textContent = (err as Error).message;
  }
}

const view = new RunView((id) => void openEvidence(id));
const evidence = new EvidencePanel((id) => {
  if (busy()) return;
  void start({ target: targetInput(), selection: { requirements: [id] } });
});
let client: ClientView;

async function main(): Promise<void> {
  const [state, catalog] = await Promise.all([get<State>('state'), get<Catalog>('catalog')]);
  byId('kit').textContent = `${state.kit.name} ${state.kit.version}`;
  byId('report-dir').textContent = state.reportDir;
  byId('profiles').append(...catalog.profiles.map((p) => h('option', { value: p })));
  const tree = new CatalogTree(catalog, () => (byId('selection-summary').textContent = tree.describe()));
  client = new ClientView(catalog);
  for (const b of document.querySelectorAll<HTMLButtonElement>('button.tab')) b.addEventListener('click', () => showTab(b.dataset.tab!));
  const keyState = async () => {
    const name = value('key-env');
    const answer = name ? await get<{ set: boolean }>('env', { name }) : { set: false };
    byId('key-env-state').textContent = answer.set ? 'set' : 'not set';
  };
  input('key-env').addEventListener('change', () => void keyState());
  input('key-typed').addEventListener('input', () => ((document.querySelector('input[name=key-from][value=typed]') as HTMLInputElement).checked = true));
  // The key from the variable when it is set, else none: the embedded mock needs no key, one click runs it.
  if (!state.keyVariable.set) (document.querySelector('input[name=key-from][value=none]') as HTMLInputElement).checked = true;
  void keyState();
  byId('run').addEventListener('click', () => void start({ target: targetInput(), selection: selectionInput(tree) }));
  byId('stop').addEventListener('click', () => shown && void post(`runs/${shown.id}/stop`));
  byId('client-stop').addEventListener('click', () => shownClient && void post(`runs/${shownClient.id}/stop`));
  byId('rerun-failed').addEventListener('click', () => view.key && void start({ target: targetInput(), rerunFailedOf: view.key }));
  byId('compare').addEventListener('click', async () => {
    const old = byId<HTMLSelectElement>('compare-with').value;
    if (!old || !view.key) return;
    try {
      view.showCompare(await get<CompareView>('compare', { old, new: view.key }));
    } catch (err) {
      byId('run-error').textContent = (err as Error).message;
    }
  });
  byId('client-run').addEventListener('click', async () => {
    byId('client-error').textContent = '';
    const timeout = value('client-timeout');
    try {
      adopt(await post<RunRecord>('client-runs', { command: value('client-command'), scenarios: client.chosen(), ...(timeout ? { timeoutMs: Number(timeout) } : {}) }));
    } catch (err) {
      byId('client-error').textContent = (err as Error).message;
    }
  });
  onRuns(state.runs);
  void refreshHistory();
  events({ runs: (d) => onRuns(d as RunRecord[]), live: (d) => onLive(d as { id: string; delta: LiveDelta }) }, (open) => (byId('connection').textContent = open ? '' : 'reconnecting…'));
  document.body.dataset.ready = '1';
}

void main();
