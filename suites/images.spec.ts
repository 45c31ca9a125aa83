// Content parts (2.5) and the image gate (2.5, 4.3 rule 7): text parts and cache_control are accepted by any
// entry; an image part is accepted by an entry with supports_images true and refused (a section 7 error,
// never an answer) by one with supports_images false. The refusal's status and code are not in the contract.
import { judges, req, test } from './lib/test-fixtures.ts';
import { judgeRefusal } from '../judge/judge-response.ts';
import { pickModel, type ModelEntry, noUsableReason } from './lib/discovery.ts';
import { probeCap, TINY_PNG_DATA_URL } from './lib/requests/features.ts';
import { isAccessRefusal, judgeAccepted, skipIfUnavailable } from '../judge/acceptance.ts';
import type { TargetResponse } from '../judge/exchange.ts';
import { slotsOf } from './lib/slots.ts';

const describeEntry = (m: ModelEntry) => `${m.id} (supports_images ${String(m.supports_images)}, supports_caching ${String(m.supports_caching)})`;

/** Judge `id` on `res` unless the refusal was about the key's access to the model (then judgeAccepted said so). */
const judgeable = (res: TargetResponse) => !isAccessRefusal(res);

/** Distinct models, in order, without the undefined ones. */
const distinct = (...ms: (ModelEntry | undefined)[]): ModelEntry[] => ms.filter((m, i): m is ModelEntry => m !== undefined && ms.findIndex((x) => x?.id === m.id) === i);

for (const slot of slotsOf(import.meta.url)) test.describe(slot.title, slot.details, () => {
  test.use({ slot });

  test.describe('content parts', () => {
    test('text parts are accepted by any entry', req('IMG-001', 'IMG-002', judges(judgeAccepted)), async ({ target, check, discovery, config }) => {
      const d = discovery;
      // One entry of each kind where the catalog says; any usable entry where it does not (text parts are for all).
      const models = distinct(pickModel(d, config.profile, { images: false }), pickModel(d, config.profile, { images: true }), pickModel(d, config.profile));
      if (models.length === 0) return check.skip(noUsableReason(discovery));
      for (const m of models) {
        const content = [
          { type: 'text', text: 'Say' },
          { type: 'text', text: 'hello.' },
        ];
        const res = await target.chat({ model: m.id, messages: [{ role: 'user', content }], max_completion_tokens: probeCap(target.maxTokens) });
        judgeAccepted(check, 'IMG-002', res, m.id, `two text parts, to ${describeEntry(m)}`);
        if (judgeable(res)) check.status('IMG-001', res, 200, `content parts of type "text" to ${m.id} must be accepted: status`);
      }
    });

    test('a part carrying cache_control is accepted', req('IMG-004', judges(judgeAccepted)), async ({ target, check, discovery, config }) => {
      // The spec gates image parts on the catalog, nothing else: cache_control is accepted whether caching applies or not.
      const d = discovery;
      const models = distinct(pickModel(d, config.profile, { caching: true }), pickModel(d, config.profile, { caching: false }), pickModel(d, config.profile));
      if (models.length === 0) return check.skip(noUsableReason(discovery));
      for (const m of models) {
        const content = [
          { type: 'text', text: 'You answer in one short sentence.', cache_control: { type: 'ephemeral' } },
          { type: 'text', text: 'Say hello.' },
        ];
        const res = await target.chat({ model: m.id, messages: [{ role: 'user', content }], max_completion_tokens: probeCap(target.maxTokens) });
        judgeAccepted(check, 'IMG-004', res, m.id, `a text part carrying cache_control {type: "ephemeral"}, to ${describeEntry(m)}`);
      }
    });
  });

  test.describe('image parts', () => {
    test('an image part is accepted by an entry with supports_images true', req('IMG-001', 'IMG-003', 'IMG-005', judges(judgeAccepted)), async ({ target, check, discovery, config }) => {
      const model = pickModel(discovery, config.profile, { images: true });
      if (!model) return check.skip(noUsableReason(discovery, 'usable model with supports_images true'));
      const cap = probeCap(target.maxTokens);
      // url alone, beside a text part.
      const plain = await target.chat({
        model: model.id,
        messages: [{ role: 'user', content: [{ type: 'text', text: 'What colour is this pixel?' }, { type: 'image_url', image_url: { url: TINY_PNG_DATA_URL } }] }],
        max_completion_tokens: cap,
      });
      judgeAccepted(check, 'IMG-005', plain, model.id, `an image part (inline PNG data URL), to ${describeEntry(model)}`);
      if (judgeable(plain)) check.status('IMG-001', plain, 200, `content parts of types "text" and "image_url" to ${model.id} must be accepted: status`);
      if (judgeable(plain)) check.status('IMG-003', plain, 200, `an image part {type: "image_url", image_url: {url}} to ${model.id} must be accepted: status`);
      // With the optional detail.
      const detailed = await target.chat({
        model: model.id,
        messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: TINY_PNG_DATA_URL, detail: 'low' } }, { type: 'text', text: 'Describe it in one word.' }] }],
        max_completion_tokens: cap,
      });
      judgeAccepted(check, 'IMG-003', detailed, model.id, `an image part with image_url.detail "low", to ${describeEntry(model)}`);
    });

    test('an image part sent to an entry with supports_images false is refused, not answered', req('IMG-006', judges(judgeRefusal)), async ({ target, check, discovery, config }) => {
      const model = pickModel(discovery, config.profile, { images: false });
      if (!model) return check.skip(noUsableReason(discovery, 'usable model with supports_images false'));
      const res = await target.chat({
        model: model.id,
        messages: [{ role: 'user', content: [{ type: 'text', text: 'What colour is this pixel?' }, { type: 'image_url', image_url: { url: TINY_PNG_DATA_URL } }] }],
        max_completion_tokens: probeCap(target.maxTokens),
      });
      skipIfUnavailable(check, res, model.id);
      if (!check.status('IMG-006', res, (s) => s !== 200, `${describeEntry(model)} must refuse an image part: a non-200 status`)) return;
      // Status and code of this refusal are not in the contract: any section 7 error passes.
      judgeRefusal(check, res, { id: 'IMG-006' });
    });
  });
});
