// A signed certification bundle's HTML says it is signed, and by which key (the fingerprint bundle.json records), and
// the bundle still verifies with that key; an unsigned bundle's page claims no signature.
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { publicKeySha256, verifyBundle, writeBundle } from '../../report/bundle.ts';
import { writeReports } from '../../report/write.ts';
import { sampleReport } from '../support/reports.ts';

let root: string;
test.beforeAll(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'chatconform-signed-html-'));
});
test.afterAll(() => rmSync(root, { recursive: true, force: true }));

test("a signed bundle's conformance.html names the signing key; an unsigned one's does not claim a signature", async () => {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const report = sampleReport();
  const reportDir = path.join(root, 'reports');
  writeReports(report, reportDir, []);
  const base = { reportDir, report, profile: { name: 'acme' }, secrets: [], command: 'chatconform run --certify', catalogText: '{}' };
  const signed = await writeBundle({ ...base, bundleDir: path.join(root, 'signed'), signKey: privateKey });
  const html = readFileSync(path.join(signed.dir, 'conformance.html'), 'utf8');
  const fingerprint = publicKeySha256(publicKey);
  expect(JSON.parse(readFileSync(path.join(signed.dir, 'bundle.json'), 'utf8')).signature.publicKeySha256).toBe(fingerprint);
  expect(html).toContain(`<div class="signed">Signed certification bundle: ed25519 key SHA-256 ${fingerprint}; chatconform verify --verify-key PUBLIC.pem checks it</div>`);
  expect((await verifyBundle(signed.dir, publicKey)).signature).toBe('verified');
  const unsigned = await writeBundle({ ...base, bundleDir: path.join(root, 'unsigned') });
  expect(readFileSync(path.join(unsigned.dir, 'conformance.html'), 'utf8')).not.toContain('class="signed"');
});
