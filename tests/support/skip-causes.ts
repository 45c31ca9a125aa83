// Every skip's named cause compared with the report's cards: what a reason names as its root cause must be the
// card that failure is on (report/root-causes.ts causeNamed), and a card's "left N unjudged" only requirements the
// run did not judge. Used on in-process folds (tests/unit/report-skip-causes.spec.ts) and on a run's report.

/** The parts of conformance.json it reads. */
export interface SkipCauseView {
  requirements: { id: string; status: string; reason?: string; skipReasons?: string[] }[];
  rootCauses: { id: string; kind: string; deviation: string; requirements: string[]; blocked: string[] }[];
}

/** What every skip or error reason names as its root cause, checked against the report's cards; the problems found. */
export function skipCauseProblems(report: SkipCauseView): string[] {
  const problems: string[] = [];
  const cards = report.rootCauses;
  for (const r of report.requirements) {
    for (const reason of [...(r.skipReasons ?? []), ...(r.reason !== undefined && r.status !== 'fail' && r.status !== 'warn' ? [r.reason] : [])]) {
      for (const m of reason.matchAll(/\(root cause: ([A-Z]+-\d{3}) failed\)/g)) {
        const card = cards.find((c) => c.requirements.includes(m[1]!));
        if (!card) problems.push(`${r.id}: names ${m[1]} failed, which is on no card`);
        else if (card.id !== m[1]) problems.push(`${r.id}: names ${m[1]} failed, which is on the card of ${card.id} (${card.kind})`);
      }
      for (const m of reason.matchAll(/\(root cause: the card of ([A-Z]+-\d{3}): ([^…)]{1,40})/g)) {
        if (!cards.some((c) => c.id === m[1] && c.deviation.startsWith(m[2]!))) problems.push(`${r.id}: names the card of ${m[1]}, which the report does not hold with that deviation`);
      }
    }
  }
  // A card's "left N unjudged": each one a requirement the run did not judge.
  for (const c of cards) {
    for (const id of c.blocked) {
      const r = report.requirements.find((x) => x.id === id);
      if (!r || (r.status !== 'skip' && r.status !== 'error')) problems.push(`the card of ${c.id} lists ${id} as left unjudged, but it is ${r?.status ?? 'absent'}`);
    }
  }
  return problems;
}

