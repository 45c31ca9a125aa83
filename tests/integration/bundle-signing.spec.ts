// Certification bundles a third party cannot forge (issue 31): changing the target in bundle.json and regenerating
// SHA256SUMS as `sha256sum` would once passed `chatconform verify`. Now verify cross-checks bundle.json against
// conformance.json, and a bundle signed with the certifier's ed25519 key (`run --certify --sign-key`) is checked
// against their public key (`verify --verify-key`); without a key, verify says plainly what it did not check.
import { createHash, generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { main } from '../../cli/program.ts';
import { MANIFEST, SIGNATURE, loadSigningKey, writeBundle } from '../../report/bundle.ts';
import { writeReports } from '../../report/write.ts';
import { sampleReport } from '../support/reports.ts';

let root: string;
let privatePem: string;
let publicPem: string;
let otherPublicPem: string;
test.beforeAll(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'chatconform-signing-'));
  const pair = generateKeyPairSync('ed25519');
  privatePem = path.join(root, 'certifier.pem');
  publicPem = path.join(root, 'certifier.pub.pem');
  otherPublicPem = path.join(root, 'other.pub.pem');
  writeFileSync(privatePem, pair.privateKey.export({ type: 'pkcs8', format: 'pem' }));
  writeFileSync(publicPem, pair.publicKey.export({ type: 'spki', format: 'pem' }));
  writeFileSync(otherPublicPem, generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }));
  writeFileSync(path.join(root, 'rsa.pem'), generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs8', format: 'pem' }));
});
test.afterAll(() => rmSync(root, { recursive: true, force: true }));

async function bundle(name: string, signed: boolean): Promise<string> {
  const reportDir = path.join(root, `${name}-reports`);
  const report = sampleReport();
  writeReports(report, reportDir, []);
  const { dir } = await writeBundle({
    reportDir,
    bundleDir: path.join(root, name),
    report,
    profile: { name: 'acme' },
    secrets: [],
    command: 'chatconform run --certify --profile acme.json',
    catalogText: '{}',
    ...(signed ? { signKey: loadSigningKey(privatePem) } : {}),
  });
  return dir;
}

async function verify(...argv: string[]): Promise<{ code: number; text: string }> {
  let text = '';
  const code = await main(['verify', ...argv], { out: (s) => (text += s), err: (s) => (text += s) });
  return { code, text };
}

/** What a forger does: edit a JSON file of the bundle, then rewrite SHA256SUMS as `sha256sum * > SHA256SUMS` would. */
function forge(dir: string, file: string, edit: (value: any) => void): void {
  const value = JSON.parse(readFileSync(path.join(dir, file), 'utf8'));
  edit(value);
  writeFileSync(path.join(dir, file), `${JSON.stringify(value, null, 2)}\n`);
  const names = readdirSync(dir).filter((f) => f !== MANIFEST && f !== SIGNATURE).sort();
  writeFileSync(path.join(dir, MANIFEST), names.map((f) => `${createHash('sha256').update(readFileSync(path.join(dir, f))).digest('hex')}  ${f}\n`).join(''));
}

test('a bundle.json whose target was changed, checksums regenerated, does not verify', async () => {
  const dir = await bundle('forged-target', false);
  forge(dir, 'bundle.json', (info) => (info.target = 'https://api.competitor.example'));
  const r = await verify(dir);
  expect(r.code).toBe(1);
  expect(r.text).toContain('NOT VERIFIED');
  expect(r.text).toContain('bundle.json and conformance.json disagree on the target: "https://api.competitor.example" vs "http://127.0.0.1:9"');
});

test('unsigned: verify holds but says the bundle is only checksummed; --verify-key refuses it', async () => {
  const dir = await bundle('unsigned', false);
  const plain = await verify(dir);
  expect(plain.code).toBe(0);
  expect(plain.text).toContain('checksummed but UNSIGNED');
  const demanded = await verify(dir, '--verify-key', publicPem);
  expect(demanded.code).toBe(1);
  expect(demanded.text).toContain('the bundle is not signed');
});

test('signed: verified with the certifier\'s public key; not checked without one; refused with another key', async () => {
  const dir = await bundle('signed', true);
  expect(readdirSync(dir)).toContain(SIGNATURE);
  expect(JSON.parse(readFileSync(path.join(dir, 'bundle.json'), 'utf8')).signature).toMatchObject({ algorithm: 'ed25519', file: SIGNATURE });
  const ok = await verify(`${dir}.tar.gz`, '--verify-key', publicPem);
  expect(ok.code).toBe(0);
  expect(ok.text).toContain('signature: VERIFIED');
  const unchecked = await verify(dir);
  expect(unchecked.code).toBe(0);
  expect(unchecked.text).toContain('the bundle is signed, but the signature was NOT CHECKED');
  const other = await verify(dir, '--verify-key', otherPublicPem);
  expect(other.code).toBe(1);
  expect(other.text).toContain('does not hold for the given public key');
});

test('a signed bundle forged consistently (both JSON files, checksums regenerated) fails its signature', async () => {
  const dir = await bundle('forged-signed', true);
  for (const file of ['bundle.json', 'conformance.json']) {
    forge(dir, file, (v) => {
      if (file === 'bundle.json') v.target = 'https://api.competitor.example';
      else v.target.url = 'https://api.competitor.example';
    });
  }
  const r = await verify(dir, '--verify-key', publicPem);
  expect(r.code).toBe(1);
  expect(r.text).toContain(`${SIGNATURE}: the signature of ${MANIFEST} does not hold`);
});

test('--sign-key: refused without --certify (exit 2); a key that is not ed25519 stops the run before it starts (exit 3)', async () => {
  const err = async (argv: string[]) => {
    let text = '';
    const code = await main(argv, { out: () => undefined, err: (s) => (text += s) });
    return { code, text };
  };
  expect(await err(['run', '--sign-key', privatePem])).toMatchObject({ code: 2, text: expect.stringContaining('--sign-key signs a certification bundle: give --certify too') });
  expect(await err(['run', '--certify', '--profile', 'mock', '--sign-key', path.join(root, 'rsa.pem')])).toMatchObject({ code: 3, text: expect.stringContaining('a bundle is signed with an ed25519 key') });
  expect(await err(['verify', root, '--verify-key', path.join(root, 'nope.pem')])).toMatchObject({ code: 3, text: expect.stringContaining('--verify-key') });
});

test('a signed bundle with a file changed after signing: NOT VERIFIED, no verdict shown as if it held, no "signature: VERIFIED"', async () => {
  const dir = await bundle('tampered-signed', true);
  // The forger edits the report and leaves SHA256SUMS (and its signature) as they were.
  const file = path.join(dir, 'conformance.json');
  const report = JSON.parse(readFileSync(file, 'utf8'));
  report.verdict.result = 'pass';
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  const r = await verify(dir, '--verify-key', publicPem);
  expect(r.code).toBe(1);
  expect(r.text).toContain('NOT VERIFIED');
  expect(r.text).toContain('conformance.json: its SHA-256 does not match SHA256SUMS');
  expect(r.text).not.toContain('signature: VERIFIED');
  expect(r.text).not.toMatch(/^verdict: [A-Z]+ —/m);
  expect(r.text).toContain('verdict: not shown');
});

test('a private key given as --verify-key is refused in one line (exit 3), its content never echoed', async () => {
  const dir = await bundle('private-as-public', true);
  let out = '';
  let err = '';
  const code = await main(['verify', dir, '--verify-key', privatePem], { out: (s) => (out += s), err: (s) => (err += s) });
  expect(code).toBe(3);
  expect(out).toBe('');
  expect(err.trim().split('\n')).toHaveLength(1);
  expect(err).toContain('is a private key');
  expect(err).not.toContain('PRIVATE KEY');
});
