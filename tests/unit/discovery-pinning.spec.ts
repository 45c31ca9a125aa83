// Pinned models (CONFORMANCE_MODELS, the profile's `models`): discovery and every pick stay within them, and a
// test that needs what they lack skips saying which capability is missing.
import { expect, test } from '@playwright/test';
import { noUsableReason, pickModel, usableModels, type Discovery } from '../../suites/lib/discovery.ts';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { resolvePlan } from '../../run/plan.ts';

const models = [
  { id: 'cheap', output_price: 1, supports_reasoning: false, supports_images: false },
  { id: 'thinker', output_price: 2, supports_reasoning: true, supports_images: false },
  { id: 'vision', output_price: 3, supports_reasoning: false, supports_images: true },
];

test('the environment wins over the profile; an empty list pins nothing', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'chatconform-pinning-'));
  const profile = (models: string[]) => {
    const file = path.join(dir, `p${models.length}.json`);
    writeFileSync(file, JSON.stringify({ models }));
    return file;
  };
  const pinned = (env: NodeJS.ProcessEnv) => resolvePlan({ CONFORMANCE_BASE_URL: 'http://127.0.0.1:1', ...env }, { configFile: false }).plan.settings.models;
  expect(pinned({ CONFORMANCE_MODELS: 'thinker, vision,thinker', CONFORMANCE_PROFILE: profile(['cheap']) })).toEqual(['thinker', 'vision']);
  expect(pinned({ CONFORMANCE_PROFILE: profile(['cheap']) })).toEqual(['cheap']);
  expect(pinned({ CONFORMANCE_MODELS: '' })).toBeUndefined();
  expect(pinned({ CONFORMANCE_MODELS: ' , ' })).toBeUndefined();
});

test('picks stay within the pinned models, cheapest first among them', () => {
  const d: Discovery = { models, searchProbes: [], pinned: ['vision', 'thinker'] };
  expect(usableModels(d, {}).map((m) => m.id)).toEqual(['thinker', 'vision']);
  expect(pickModel(d, {}, {})?.id).toBe('thinker');
  expect(pickModel(d, {}, { images: true })?.id).toBe('vision');
  expect(pickModel({ ...d, pinned: ['cheap'] }, {}, { reasoning: true })).toBeUndefined();
  expect(usableModels({ models }, {}).map((m) => m.id)).toEqual(['cheap', 'thinker', 'vision']);
});

test('a skip names the capability the pinned models lack, or that none of them is listed', () => {
  expect(noUsableReason({ models, searchProbes: [], pinned: ['cheap'] }, 'usable model with supports_reasoning true')).toBe('the run is pinned to cheap: none has supports_reasoning true');
  expect(noUsableReason({ models, searchProbes: [], pinned: ['gone', 'also-gone'] })).toBe('none of the pinned models (gone, also-gone) is in the catalog');
  // A pinned model the key may not use: the access probe says why.
  const refused: Discovery = { models, searchProbes: [], pinned: ['vision'], accessProbes: [{ model: 'vision', status: 403, code: 'insufficient_tier' }] };
  expect(noUsableReason(refused)).toMatch(/may use none of them now: vision HTTP 403 insufficient_tier/);
});
