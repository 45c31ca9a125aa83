import { expect, test } from '@playwright/test';
import { MAX_DEPTH, redact, redactDeep, redactHeaders, REDACTION_MASK, TOO_DEEP } from '../../spec/redact.ts';

test('configured secrets are masked wherever they appear', () => {
  expect(redact('key=sk-secret-1 and again sk-secret-1.', ['sk-secret-1'])).toBe(`key=${REDACTION_MASK} and again ${REDACTION_MASK}.`);
});

test('a bearer credential the run was not told about is masked, in any case of the scheme', () => {
  expect(redact('Authorization: Bearer sk-live-xyz', [])).toBe(`Authorization: Bearer ${REDACTION_MASK}`);
  expect(redact('"authorization":"bearer abc$123"', [])).toBe(`"authorization":"bearer ${REDACTION_MASK}"`);
  expect(redact('Bearer $abc123', [])).toBe(`Bearer ${REDACTION_MASK}`);
});

test('an environment-variable reference in a replay curl is kept', () => {
  expect(redact(`-H "Authorization: Bearer $CONFORMANCE_API_KEY"`, [])).toBe(`-H "Authorization: Bearer $CONFORMANCE_API_KEY"`);
  expect(redact('Bearer ${RESTRICTED_KEY}', [])).toBe('Bearer ${RESTRICTED_KEY}');
  expect(redact('Bearer $CONFORMANCE_API_KEY&quot;', [])).toBe('Bearer $CONFORMANCE_API_KEY&quot;');
  expect(redact('sent as `Bearer <API_KEY>`', [])).toBe('sent as `Bearer <API_KEY>`');
});

test('credential headers are masked whole; others only where they carry a secret', () => {
  expect(redactHeaders({ Authorization: 'Bearer x', 'x-api-key': 'k', 'x-echo': 'sk-1 seen' }, ['sk-1'])).toEqual({
    Authorization: REDACTION_MASK,
    'x-api-key': REDACTION_MASK,
    'x-echo': `${REDACTION_MASK} seen`,
  });
});

test('a header named Authentication or X-Auth is a credential header, like Authorization (issue 51, item 2)', () => {
  expect(redactHeaders({ Authentication: 'k-abcdef', 'X-Auth': 'k-123456', 'x-tenant': 'acme' }, [])).toEqual({ Authentication: REDACTION_MASK, 'X-Auth': REDACTION_MASK, 'x-tenant': 'acme' });
  expect(redact('Authentication: k-abcdef', [])).toBe(`Authentication: ${REDACTION_MASK}`);
  expect(redact('{"authentication":"k-abcdef"}', [])).toBe(`{"authentication":"${REDACTION_MASK}"}`);
});

/** `{ a: { a: … { a: leaf } } }`, `depth` objects deep, built without recursion. */
function nested(depth: number, leaf: unknown): Record<string, unknown> {
  let v: unknown = leaf;
  for (let i = 0; i < depth; i++) v = { a: v };
  return v as Record<string, unknown>;
}

test('redactDeep walks a 100,000-deep value in bounded stack, cutting it at MAX_DEPTH with a note (issue 51, item 3)', () => {
  // The old walk recursed once per level: a 3,000-deep client report ended `chatconform client` with a stack overflow.
  const deep = { scenario: 'x', detail: nested(100_000, 'sk-leak-0123456789abcdef') };
  const out = redactDeep(deep, []);
  let v: unknown = out.detail;
  let depth = 1;
  while (typeof v === 'object' && v !== null) {
    v = (v as { a: unknown }).a;
    depth++;
  }
  expect(v).toBe(TOO_DEEP);
  expect(depth).toBe(MAX_DEPTH);
  // What is left is writable by every writer (JSON.stringify overflows a few thousand levels down).
  expect(JSON.stringify(out)).toContain(TOO_DEEP);
  // Within the bound, every string is still redacted, keys and credential fields included, arrays kept in order.
  const shallow = nested(200, { apiKey: 'k-plain-123456', list: ['sk-1', { 'sk-1': 'Bearer abcdefgh' }], __proto__x: 1 });
  expect(JSON.stringify(redactDeep(shallow, ['sk-1']))).toBe(JSON.stringify(nested(200, { apiKey: REDACTION_MASK, list: [REDACTION_MASK, { [REDACTION_MASK]: `Bearer ${REDACTION_MASK}` }], __proto__x: 1 })));
  const proto = JSON.parse('{"__proto__":{"k":"sk-1"}}') as object;
  expect(JSON.stringify(redactDeep(proto, ['sk-1']))).toBe(`{"__proto__":{"k":"${REDACTION_MASK}"}}`);
});

test('a short secret (a tenant header of a few letters) is masked as a whole token, never inside an id or a word', () => {
  const text = 'X-Tenant: acme; {"tenant":"acme"}; model acme/chat-large; acme-corp; acmes';
  expect(redact(text, ['acme'])).toBe('X-Tenant: ***REDACTED***; {"tenant":"***REDACTED***"}; model acme/chat-large; acme-corp; acmes');
  // A key-length secret is masked wherever it stands, inside a word too.
  expect(redact('prefix-sk0123456789xyz-suffix', ['sk0123456789xyz'])).toBe('prefix-***REDACTED***-suffix');
});
