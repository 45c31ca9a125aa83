// Every string that leaves the kit (evidence, curls, reports, logs, the mock's journal, the proxy's recordings)
// passes through here first. Two kinds of masking: the secrets a caller knows (the run's keys), and credentials
// recognised by *where* they stand (a header, query parameter or JSON field named like a credential, a bearer
// token) or by *what they look like* (well-known key formats). The second kind needs no memory of values, so it
// never runs out however many keys pass by.
const MASK = '***REDACTED***';

/**
 * A name (header, query parameter, JSON field) whose value is a credential. Separators and case are ignored:
 * `x-api-key`, `api_key`, `apiKey`, `X-Goog-Api-Key`, `access_token`, `client_secret`, `password`, `cookie`.
 * Bare `key` and `token` are not (a logprob's `token`, a profile's nested `key` object): see QUERY_ONLY.
 */
export function isCredentialName(name: string): boolean {
  const n = name.toLowerCase().replace(/[-_.\s]/g, '');
  return /(?:apikey|accesskey|secretkey|privatekey|signingkey|(?:access|refresh|id|auth|session|bearer|api|client|security|csrf|xsrf)token|secret|passwd|password|passphrase|authori[sz]ation|authentication|cookie)$/.test(n);
}

/** Query-string names that carry a key although too generic to be one as a JSON field (`?key=`, `?token=`). */
const QUERY_ONLY = /^(?:key|token|auth|sig|signature)$/i;

/** Headers that carry a credential: never shown, recorded or replayed with their value. */
export function isCredentialHeader(name: string): boolean {
  // A header whose last word is key, token or auth carries one (x-gateway-key, ocp-apim-subscription-key, x-auth):
  // headers name their purpose, where a JSON field called `key` may be anything. A header of any other name the
  // user supplies is a secret of the run all the same (run/extra-headers.ts): names are only the first guard.
  return isCredentialName(name) || /(?:^|[-_.])(?:key|token|auth)$/i.test(name);
}

/** Headers that carry a credential, as a pattern (kept for callers that test names with a RegExp). */
export const CREDENTIAL_HEADER = { test: isCredentialHeader } as const;

/** A value that names a credential without being one: `$VAR`, `${VAR}` (replay curls), `<PLACEHOLDER>` (the spec's wording), or one already masked. */
function isPlaceholder(token: string): boolean {
  return token.toUpperCase().startsWith(MASK) || /^\$\{?[A-Z_][A-Z0-9_]*\}?(?![A-Za-z0-9_])|^(?:<|&lt;)[A-Za-z0-9_ -]+(?:>|&gt;)/.test(token);
}

/** A credential value: its scheme (`Bearer`, `Basic`, …) kept, the rest masked unless it is a placeholder. */
function maskValue(value: string): string {
  const m = /^(\s*(?:bearer|basic|token|digest|bot)\s+)(.*)$/is.exec(value);
  const [prefix, token] = m ? [m[1]!, m[2]!] : ['', value];
  if (token.trim() === '' || isPlaceholder(token.trim())) return value;
  return `${prefix}${MASK}`;
}

/**
 * Well-known key formats, masked wherever they appear (an upstream that echoes a key in an error message, a key
 * pasted into a prompt): OpenAI/Anthropic-style `sk-…`, Google `AIza…`, GitHub, Slack, AWS access key ids, JWTs.
 */
const KEY_SHAPES: readonly RegExp[] = [
  /(?<![A-Za-z0-9_-])sk-[A-Za-z0-9_-]{20,}/g,
  /(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35}/g,
  /(?<![A-Za-z0-9_])(?:gh[pousr]|github_pat)_[A-Za-z0-9_]{20,}/g,
  /(?<![A-Za-z0-9_-])xox[abprs]-[A-Za-z0-9-]{10,}/g,
  /(?<![A-Z0-9])(?:AKIA|ASIA)[0-9A-Z]{16}(?![A-Z0-9])/g,
  /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
];

// Names are matched loosely here (bounded, so a long text costs linear time) and decided by isCredentialName.
const NAME = String.raw`[A-Za-z0-9_.-]{0,60}(?:key|token|secret|passwd|password|passphrase|authori[sz]ation|authentication|cookie)`;
/** `"api_key": "value"` in JSON. */
const JSON_FIELD = new RegExp(String.raw`"(${NAME})"(\s*:\s*)"((?:[^"\\]|\\[^])*)"`, 'gi');
/** The same once escaped inside a JSON string (`\"api_key\":\"value\"`: a tool call's arguments, an event's data). */
const JSON_FIELD_ESCAPED = new RegExp(String.raw`\\"(${NAME})\\"(\s*:\s*)\\"((?:[^"\\]|\\\\|\\[^"\\])*)\\"`, 'gi');
/** `x-api-key: value` as a header line (a curl's `-H '…'`, a log): to the end of the line or the quote. */
const HEADER_LINE = new RegExp(String.raw`(?<![A-Za-z0-9_.-])(${NAME})(\s*:[ \t]*)([^\r\n'"]+)`, 'gi');
// Cheap tests that a text holds a credential-like name before a colon at all: the full patterns above cost about
// ten times as much on a large body (the proxy scrubs bodies up to 10 MB), and most bodies hold none.
const JSON_HINT = /(?:key|token|secret|passwd|password|passphrase|authori[sz]ation|authentication|cookie)\\?"\s*:/i;
const HEADER_HINT = /(?:key|token|secret|passwd|password|passphrase|authori[sz]ation|authentication|cookie)\s*:/i;
/** `?api_key=value` / `&key=value` in a URL or a form body; `;` also precedes a name after `&amp;`. */
const QUERY_PARAM = /(^|[?&;])([A-Za-z0-9_.-]{1,64})=([^&#\s'"<>\\]*)/g;

/**
 * Secrets shorter than this are masked where they stand as a whole token, not inside a longer word: every header a
 * user supplies is a secret of the run, and a tenant header's `acme` must not turn the model id `acme/chat-large`
 * into a masked id. A real key is far longer, and is masked wherever it appears.
 */
export const SHORT_SECRET = 8;

/** Masks `secret` where neither side of it continues a word, an id or a path (letters, digits, `_`, `-`, `.`, `/`). */
function maskWholeToken(text: string, secret: string): string {
  if (!text.includes(secret)) return text;
  const escaped = secret.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return text.replace(new RegExp(`(?<![A-Za-z0-9_./-])${escaped}(?![A-Za-z0-9_./-])`, 'g'), MASK);
}

/** Masks each secret, and every credential recognised by its place or its shape, wherever it appears in the text. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (s) out = s.length < SHORT_SECRET ? maskWholeToken(out, s) : out.split(s).join(MASK);
  if (JSON_HINT.test(out)) {
    for (const [pattern, q] of [[JSON_FIELD, '"'], [JSON_FIELD_ESCAPED, '\\"']] as const) {
      out = out.replace(pattern, (whole, name: string, colon: string, value: string) =>
        isCredentialName(name) && value !== '' && !isPlaceholder(value) ? `${q}${name}${q}${colon}${q}${maskValue(value)}${q}` : whole,
      );
    }
  }
  if (HEADER_HINT.test(out)) out = out.replace(HEADER_LINE, (whole, name: string, colon: string, value: string) => {
    if (!isCredentialName(name)) return whole;
    // A cookie is masked whole; otherwise the value's first word (after a scheme), so the rest of a line stays.
    if (/cookie$/i.test(name)) return isPlaceholder(value.trim()) ? whole : `${name}${colon}${MASK}`;
    const m = /^((?:(?:bearer|basic|token|digest|bot)\s+)?)([^\s,;\\]+)(.*)$/is.exec(value);
    // A bare scheme: the token follows outside the quotes (`"Authorization: Bearer "$CONFORMANCE_API_KEY`).
    if (!m || /^(?:bearer|basic|token|digest|bot)\s*$/i.test(value)) return whole;
    return `${name}${colon}${maskValue(m[1]! + m[2]!)}${m[3]!}`;
  });
  out = out.replace(QUERY_PARAM, (whole, sep: string, name: string, value: string) =>
    (isCredentialName(name) || QUERY_ONLY.test(name)) && value !== '' && !isPlaceholder(value) ? `${sep}${name}=${MASK}` : whole,
  );
  // A bearer credential anywhere (prose, an echoed header) is still a credential.
  out = out.replace(/(Bearer\s+)([^\s"'\\,]+)/gi, (whole, prefix: string, token: string) => (isPlaceholder(token) ? whole : `${prefix}${MASK}`));
  for (const shape of KEY_SHAPES) out = out.replace(shape, MASK);
  return out;
}

export function redactHeaders(headers: Record<string, string>, secrets: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    out[name] = isCredentialHeader(name) ? MASK : redact(value, secrets);
  }
  return out;
}

/**
 * How deep a value the kit writes may nest. A report, an attachment or a log never needs more; past it JSON.stringify
 * and any recursive walk overflow the stack (about 3,000-10,000 levels, by frame size), so a value an untrusted side
 * nested deeper (a client's report line, a target's answer) is cut here, once, with a note in its place.
 */
export const MAX_DEPTH = 256;

/** What stands in for a value nested deeper than MAX_DEPTH. */
export const TOO_DEEP = `[left out: nested deeper than ${MAX_DEPTH} levels]`;

/**
 * A deep copy of a value with every string (and object key) redacted, and the string value of every field named
 * like a credential masked whole (`{ "apiKey": "…" }` as data, where no text around it says what it is). An explicit
 * stack, never recursion: any depth is walked in bounded stack, and what lies below MAX_DEPTH is replaced by TOO_DEEP.
 */
export function redactDeep<T>(value: T, secrets: readonly string[]): T {
  const leaf = (v: unknown, credential: boolean): unknown => (typeof v === 'string' ? (credential && v !== '' && !isPlaceholder(v) ? maskValue(v) : redact(v, secrets)) : v);
  const isNode = (v: unknown): v is object => v !== null && typeof v === 'object';
  const copy = (v: object): unknown[] | Record<string, unknown> => (Array.isArray(v) ? new Array<unknown>(v.length) : {});
  if (!isNode(value)) return leaf(value, false) as T;
  const root = copy(value);
  // Each frame: a source node, its copy, whether it sits under a credential's name, and its depth.
  const stack: { from: object; to: unknown[] | Record<string, unknown>; credential: boolean; depth: number }[] = [{ from: value, to: root, credential: false, depth: 1 }];
  while (stack.length > 0) {
    const { from, to, credential, depth } = stack.pop()!;
    const put = (key: string | number, x: unknown, cred: boolean): void => {
      let out: unknown;
      if (!isNode(x)) out = leaf(x, cred);
      else if (depth >= MAX_DEPTH) out = TOO_DEEP;
      else {
        out = copy(x);
        stack.push({ from: x, to: out as unknown[] | Record<string, unknown>, credential: cred, depth: depth + 1 });
      }
      // A `__proto__` key (JSON.parse makes it an own field) stays a field, never the copy's prototype.
      if (key === '__proto__') Object.defineProperty(to, key, { value: out, enumerable: true, writable: true, configurable: true });
      else (to as Record<string | number, unknown>)[key] = out;
    };
    if (Array.isArray(from)) from.forEach((x, i) => put(i, x, credential));
    else for (const [k, x] of Object.entries(from)) put(redact(k, secrets), x, isCredentialName(k));
  }
  return root as T;
}

/**
 * The credentials one request carries (credential headers, credential query parameters, credential fields of a
 * JSON body), for masking wherever else they appear in the same exchange (an upstream echoing the key in plain
 * words). Per exchange: nothing is remembered across exchanges, so there is nothing to run out of.
 */
export function credentialsOf(headers: Record<string, string>, url = '', body = ''): string[] {
  const found = new Set<string>();
  const add = (v: string): void => {
    const token = v.replace(/^\s*(?:bearer|basic|token|digest|bot)\s+/i, '').trim();
    if (token.length >= 4 && !isPlaceholder(token)) found.add(token);
  };
  for (const [k, v] of Object.entries(headers)) {
    if (!isCredentialHeader(k)) continue;
    add(v);
    // A cookie's values one by one: an echo shows a value without the rest of the header.
    if (/cookie$/i.test(k)) for (const pair of v.split(';')) add(pair.slice(pair.indexOf('=') + 1));
  }
  const query = url.includes('?') ? url.slice(url.indexOf('?') + 1) : '';
  for (const part of query.split('&')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const name = part.slice(0, eq);
    if (!isCredentialName(name) && !QUERY_ONLY.test(name)) continue;
    add(part.slice(eq + 1));
    try {
      add(decodeURIComponent(part.slice(eq + 1)));
    } catch {
      // Not percent-encoded properly: the raw form is enough.
    }
  }
  if (body) {
    for (const m of body.matchAll(JSON_FIELD)) if (isCredentialName(m[1]!)) add(m[3]!);
  }
  return [...found];
}

export { MASK as REDACTION_MASK };
