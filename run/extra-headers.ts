// Headers added to every request of a run (`-H 'Name: value'`, CONFORMANCE_HEADERS, the config file's and the
// profile's `headers`): a gateway in front of the target may need a tenant or routing header, as Schemathesis and
// curl users add with -H. Every such value is a secret of the run, whatever its header's name (a key travels under
// `Authentication`, `X-Auth`, any name a gateway chose): masked in every output like the key, unless the user
// declares the header public (--public-header NAME, CONFORMANCE_PUBLIC_HEADERS). A credential-looking name
// (spec/redact.ts) is never public.
import { isCredentialHeader } from '../spec/redact.ts';

/** An HTTP field name (RFC 9110 token). */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * Names the kit's own transport sets: hop-by-hop and framing headers, and Host. One added to every request would
 * reframe the kit's own bodies (a `Content-Length: 5` truncates them) and the target would be charged with the
 * failures that follow.
 */
export const REFUSED_HEADERS: readonly string[] = ['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'upgrade', 'host'];

/** `Name: value` as a header; a clear error for anything HTTP could not carry, or that the transport owns. */
export function parseHeaderLine(raw: string): [name: string, value: string] {
  const colon = raw.indexOf(':');
  // Not echoed: a line without a colon may be a bare key.
  if (colon <= 0) throw new Error(`a line of ${raw.length} characters (not shown) is not a header: write it as 'Name: value'`);
  const name = raw.slice(0, colon).trim();
  const value = raw.slice(colon + 1).trim();
  if (!TOKEN.test(name)) throw new Error(`"${name}" is not a header name`);
  if (REFUSED_HEADERS.includes(name.toLowerCase())) throw new Error(`${name} is a hop-by-hop or framing header the kit's transport sets itself: it cannot be added to every request`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0008\u000a-\u001f\u007f]/.test(value)) throw new Error(`the value of ${name} holds a line break or a control character`);
  return [name, value];
}

/** The headers of CONFORMANCE_HEADERS: one `Name: value` per line. */
export function headersOfText(text: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of (text ?? '').split('\n')) {
    if (line.trim() === '') continue;
    const [name, value] = parseHeaderLine(line);
    out[name.toLowerCase()] = value;
  }
  return out;
}

/** Headers as CONFORMANCE_HEADERS carries them. */
export function headersText(headers: Record<string, string>): string {
  return Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}`)
    .join('\n');
}

/** Whether a header's value may be shown: the user declared it public, and its name is not a credential's. */
export function isPublicHeader(name: string, publicNames: readonly string[] = []): boolean {
  return !isCredentialHeader(name) && publicNames.some((p) => p.toLowerCase() === name.toLowerCase());
}

/** The values among `headers` that are secrets of the run (every one not declared public), masked in every output. */
export function headerSecrets(headers: Record<string, string>, publicNames: readonly string[] = []): string[] {
  return Object.entries(headers)
    .filter(([name]) => !isPublicHeader(name, publicNames))
    .map(([, value]) => value.replace(/^(bearer|basic|token)\s+/i, ''));
}
