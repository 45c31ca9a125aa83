// An exchange as evidence: bodies cut to a readable size and scrubbed, and a curl that replays the request with
// the credential as an environment variable, never its value. The suite's client (target.ts) and the traffic
// proxy (proxy/) build their exchanges with these, so a report reads the same whoever sent the request.

/** Largest body kept in evidence; the rest is elided (a 10 MB probe must not bloat the report). */
export const EVIDENCE_LIMIT = 16 * 1024;

/** Longest head and tail a generator command carries literally. */
const GENERATOR_LITERAL_LIMIT = 4 * 1024;

export type Scrub = (text: string) => string;

/**
 * The body as evidence: scrubbed, at most EVIDENCE_LIMIT characters. Only the head is decoded and scrubbed (a
 * 16 MB body must not be copied several times over); the margin past it covers any of `secrets` that straddles
 * the cut.
 */
export function evidenceText(bytes: Buffer, scrub: Scrub, secrets: readonly string[]): string {
  const margin = 4 * 1024 + Math.max(0, ...secrets.map((s) => Buffer.byteLength(s)));
  const head = bytes.length <= EVIDENCE_LIMIT * 4 ? bytes : bytes.subarray(0, EVIDENCE_LIMIT * 4 + margin);
  const scrubbed = scrub(head.toString('utf8'));
  if (scrubbed.length <= EVIDENCE_LIMIT && head === bytes) return scrubbed;
  const shown = scrubbed.slice(0, EVIDENCE_LIMIT);
  return `${shown}${excerptMark(Buffer.byteLength(shown), bytes.length)}`;
}

/** The mark after an excerpt: it is one, of how many bytes, and the body's whole size (a reader replays the size). */
export function excerptMark(shownBytes: number, totalBytes: number): string {
  return `\n… (excerpt: the first ${shownBytes} of ${totalBytes} bytes; ${totalBytes - shownBytes} more bytes elided)`;
}

export function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Headers a curl never repeats: the credential (an environment variable instead) and what curl sets itself. */
const NOT_REPEATED = /^(authorization|host|content-length|connection|transfer-encoding|keep-alive)$/i;

export interface CurlInput {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** The environment variable the credential is read from; undefined when the request carried none. */
  keyVar?: string;
  scrub: Scrub;
}

/**
 * A curl that replays the request. A body over the evidence limit comes as a generator command piped into curl,
 * when the body is a run of one repeated character between a short head and tail (a 10 MB request is filler).
 */
export function curlOf({ method, url, headers, body, keyVar, scrub }: CurlInput): string {
  const parts = ['curl', '-sS', '-N', '-X', method, shellQuote(scrub(url))];
  for (const [name, value] of Object.entries(headers)) {
    if (NOT_REPEATED.test(name)) continue;
    parts.push('-H', shellQuote(`${name}: ${scrub(value)}`));
  }
  if (keyVar) parts.push('-H', `"Authorization: Bearer \$${keyVar}"`);
  if (body === undefined) return parts.join(' ');
  if (body.length <= EVIDENCE_LIMIT) {
    parts.push('--data-binary', shellQuote(scrub(body.toString('utf8'))));
    return parts.join(' ');
  }
  const generator = bodyGenerator(body, scrub);
  if (!generator) {
    parts.push('--data-binary', `@body.json  # ${body.length} bytes: write the request's body to body.json`);
    return parts.join(' ');
  }
  parts.push('--data-binary', '@-');
  return `${generator} | ${parts.join(' ')}`;
}

/**
 * A shell command that prints exactly `body`, when it is a head, one character repeated, and a tail (the
 * suite's oversized probes); undefined otherwise. The head and tail pass through `scrub`, like all evidence.
 */
export function bodyGenerator(body: Buffer, scrub: Scrub = (s) => s): string | undefined {
  // The longest run of one byte; a body of filler has one run that is nearly all of it.
  let best = { start: 0, length: 0 };
  for (let i = 0; i < body.length; ) {
    let j = i + 1;
    while (j < body.length && body[j] === body[i]) j++;
    if (j - i > best.length) best = { start: i, length: j - i };
    i = j;
  }
  const byte = body[best.start];
  // A multi-byte UTF-8 filler would need its own handling; the suite's probes repeat one ASCII character.
  if (byte === undefined || byte >= 0x80 || best.length < EVIDENCE_LIMIT) return undefined;
  const head = body.subarray(0, best.start).toString('utf8');
  const tail = body.subarray(best.start + best.length).toString('utf8');
  if (head.length + tail.length > GENERATOR_LITERAL_LIMIT) return undefined;
  const program = `process.stdout.write(${JSON.stringify(scrub(head))}+${JSON.stringify(String.fromCharCode(byte))}.repeat(${best.length})+${JSON.stringify(scrub(tail))})`;
  return `node -e ${shellQuote(program)}`;
}
