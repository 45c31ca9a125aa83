// The report writers' guard. The report's data is redacted once, as data (spec/redact.ts `redactDeep`): every string and every
// object key through `redact()` with the run's secrets, bearer credentials included, on top of what the target
// client already scrubbed. The files rendered from it are then only checked for the run's *known* secrets, in
// every form a writer can give them (raw, HTML- or XML-escaped, JSON-escaped): running the bearer heuristic again
// over rendered text would read `Bearer &quot;$CONFORMANCE_API_KEY` as a credential, break the replay curls and
// raise an alarm about a leak that never happened.
import { REDACTION_MASK } from '../spec/redact.ts';
import { esc } from './html.ts';
import { xmlEscape } from './junit.ts';

/**
 * Every form a secret can take in a rendered file, longest first (so a form is masked whole). Lower case too: the
 * HTML keeps a lower-cased copy of each requirement's text for its search box.
 */
function formsOf(secret: string): string[] {
  const forms = new Set([secret, secret.toLowerCase()].flatMap((s) => [s, esc(s), xmlEscape(s), JSON.stringify(s).slice(1, -1)]));
  return [...forms].filter((f) => f !== '').sort((a, b) => b.length - a.length);
}

/**
 * The writers' guard: masks every known secret, in any of its forms, in a rendered file. `leaked` is true exactly
 * when one was there, i.e. a secret really reached a writer unredacted.
 */
export function maskKnownSecrets(text: string, secrets: readonly string[]): { text: string; leaked: boolean } {
  let out = text;
  let leaked = false;
  for (const secret of secrets) {
    if (!secret) continue;
    for (const form of formsOf(secret)) {
      if (!out.includes(form)) continue;
      leaked = true;
      out = out.split(form).join(REDACTION_MASK);
    }
  }
  return { text: out, leaked };
}
