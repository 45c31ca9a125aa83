// Every string that leaves the suite (evidence, curls, reports, logs) passes through here first.
const MASK = '***REDACTED***';

/** Masks each secret, and any bearer credential, wherever it appears in the text. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (s) out = out.split(s).join(MASK);
  // A credential the run was not told about (e.g. echoed back by a target) is still a credential; a
  // `$VARIABLE` reference (as in the replay curls, also once escaped into HTML or XML) or a `<PLACEHOLDER>`
  // (as in the spec's own wording) names none and stays.
  return out.replace(/(Bearer\s+)([^\s"'\\,]+)/gi, (whole, prefix: string, token: string) =>
    token.toUpperCase().startsWith(MASK) || /^\$\{?[A-Z_][A-Z0-9_]*\}?(?![A-Za-z0-9_])|^(?:<|&lt;)[A-Za-z0-9_ -]+(?:>|&gt;)/.test(token) ? whole : `${prefix}${MASK}`,
  );
}

/** Headers that carry a credential: never shown, recorded or replayed with their value. */
export const CREDENTIAL_HEADER = /^(authorization|proxy-authorization|x-api-key|api-key|cookie|set-cookie)$/i;

export function redactHeaders(headers: Record<string, string>, secrets: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    out[name] = CREDENTIAL_HEADER.test(name) ? MASK : redact(value, secrets);
  }
  return out;
}

export { MASK as REDACTION_MASK };
