import { expect, test } from '@playwright/test';
import { redact, redactHeaders, REDACTION_MASK } from '../../spec/redact.ts';

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
