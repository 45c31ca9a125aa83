// Routing preferences: the provider object (2.1, 2.8), 4.3 rules 4 and 5, section 7 rule 3.
// Every field is accepted; none is a guarantee (the suite never judges whether a sort or order was followed);
// none changes the model: whatever the preferences, a 200 answer names the requested entry. An
// allow_fallbacks refusal is judged only with the target's cooperation (see routing-probes.ts).
import { judges, req, test } from './lib/test-fixtures.ts';
import { judgeRefusal } from '../judge/judge-response.ts';
import { judgeModelKept } from '../judge/comparisons.ts';
import { pickModel, usableModels, type Discovery, type ModelEntry, noUsableReason } from './lib/discovery.ts';
import type { Profile } from '../run/profile.ts';
import { outcomeOf, probeCap } from './lib/requests/features.ts';
import { judgeAccepted, skipIfUnavailable } from '../judge/acceptance.ts';
import { judgeAnsweredEitherWay, judgeModelKeptOrRefused } from '../judge/routing.ts';
import { allowFallbacksCooperation, noSuchRoute, orderProbes, sortProbes } from './lib/requests/routing.ts';
import type { Target, TargetResponse } from '../run/target.ts';
import { slotsOf } from './lib/slots.ts';

/** How many models the "no preference changes the model" test spreads its combinations over. */
const MODELS_FOR_COMBINATIONS = 3;

/** The cheapest model to route: a plain one when the catalog has it (no reasoning budget to spend). */
function routingModel(discovery: Discovery, profile: Profile): ModelEntry | undefined {
  const d = discovery;
  return pickModel(d, profile, { reasoning: false }) ?? pickModel(d, profile);
}

function ask(target: Target, model: string, provider: unknown, extra: Record<string, unknown> = {}): Promise<TargetResponse> {
  return target.chat({ model, messages: [{ role: 'user', content: 'Say hello.' }], provider, max_completion_tokens: probeCap(target.maxTokens), ...extra });
}

for (const slot of slotsOf(import.meta.url)) test.describe(slot.title, slot.details, () => {
  test.use({ slot });

  test.describe('provider routing preferences', () => {
    test('provider, an empty preference object, is accepted', req('ROUTE-001', 'ROUTE-008', judges(judgeAccepted, judgeModelKept)), async ({ target, check, discovery, config }) => {
      const model = routingModel(discovery, config.profile);
      if (!model) return check.skip(noUsableReason(discovery));
      const res = await ask(target, model.id, {});
      const body = judgeAccepted(check, 'ROUTE-001', res, model.id, 'provider {}');
      if (body) judgeModelKept(check, res, model.id, [body.model], 'provider {}');
    });

    test('provider.sort: a string ranking preference is accepted; the accepted values are recorded', req('ROUTE-002', 'ROUTE-007', 'ROUTE-008', 'OBS-012', judges(judgeModelKeptOrRefused, judgeAnsweredEitherWay)), async ({ target, check, discovery, config }) => {
      const model = routingModel(discovery, config.profile);
      if (!model) return check.skip(noUsableReason(discovery));
      const outcomes: Record<string, ReturnType<typeof outcomeOf>> = {};
      for (const sort of sortProbes(config.seed)) {
        const res = await ask(target, model.id, { sort });
        skipIfUnavailable(check, res, model.id);
        outcomes[sort] = outcomeOf(res);
        judgeAnsweredEitherWay(check, res, `provider.sort ${JSON.stringify(sort)}`);
        judgeModelKeptOrRefused(check, res, model.id, `provider.sort ${JSON.stringify(sort)}`);
      }
      const accepted = Object.keys(outcomes).filter((s) => outcomes[s]!.status === 200);
      // The allowed values are a gap: a target may refuse some, but a string sort must be accepted at all.
      check.that('ROUTE-002', accepted.length > 0, () => `no provider.sort string was accepted; tried ${JSON.stringify(outcomes)}`, null /* over one request per value: none was accepted */);
      check.observe('OBS-012', { accepted, refused: Object.fromEntries(Object.entries(outcomes).filter(([, o]) => o.status !== 200)) }, `provider.sort values accepted on ${model.id}`, null /* one request per value */);
    });

    test('provider.order: an array of routes is accepted; the accepted element types are recorded', req('ROUTE-003', 'ROUTE-007', 'ROUTE-008', 'OBS-013', judges(judgeModelKeptOrRefused, judgeAnsweredEitherWay)), async ({ target, check, discovery, config }) => {
      const model = routingModel(discovery, config.profile);
      if (!model) return check.skip(noUsableReason(discovery));
      const outcomes: Record<string, ReturnType<typeof outcomeOf>> = {};
      for (const { elementType, order } of orderProbes(config.seed)) {
        // Fallbacks allowed explicitly: an order naming no route must not be read as "refuse me" (the default is a gap).
        const res = await ask(target, model.id, { order, allow_fallbacks: true });
        skipIfUnavailable(check, res, model.id);
        outcomes[elementType] = outcomeOf(res);
        judgeAnsweredEitherWay(check, res, `provider.order ${JSON.stringify(order)}`);
        judgeModelKeptOrRefused(check, res, model.id, `provider.order ${JSON.stringify(order)}`);
      }
      const accepted = Object.keys(outcomes).filter((t) => outcomes[t]!.status === 200);
      // The element type is a gap: a target may refuse some shapes, but an order array must be accepted at all.
      check.that('ROUTE-003', accepted.length > 0, () => `no provider.order array was accepted; tried ${JSON.stringify(outcomes)}`, null /* over one request per shape: none was accepted */);
      check.observe('OBS-013', { accepted, refused: Object.fromEntries(Object.entries(outcomes).filter(([, o]) => o.status !== 200)) }, `provider.order element types accepted on ${model.id}`, null /* one request per shape */);
    });

    test('provider.allow_fallbacks, a boolean, is accepted', req('ROUTE-004', 'ROUTE-008', judges(judgeAccepted, judgeModelKept)), async ({ target, check, discovery, config }) => {
      const model = routingModel(discovery, config.profile);
      if (!model) return check.skip(noUsableReason(discovery));
      // true: fallbacks allowed, so any route may serve; false alone is judged with the refusal tests below.
      const res = await ask(target, model.id, { allow_fallbacks: true });
      const body = judgeAccepted(check, 'ROUTE-004', res, model.id, 'provider {allow_fallbacks: true}');
      if (body) judgeModelKept(check, res, model.id, [body.model], 'allow_fallbacks true');
    });

    test('no preference changes the model that was requested', req('ROUTE-008', judges(judgeModelKeptOrRefused, judgeModelKept, judgeRefusal)), async ({ target, check, discovery, config }) => {
      const models = usableModels(discovery, config.profile).slice(0, MODELS_FOR_COMBINATIONS);
      if (models.length === 0) return check.skip(noUsableReason(discovery));
      const route = noSuchRoute(config.seed);
      const combinations: Record<string, unknown>[] = [
        { sort: 'price', allow_fallbacks: false },
        { order: [route], allow_fallbacks: true },
        { sort: 'throughput', order: [route], allow_fallbacks: true },
      ];
      // The combinations rotate over the cheapest models, so a catalog with several entries sees several.
      for (const [i, provider] of combinations.entries()) {
        const model = models[i % models.length]!;
        const res = await ask(target, model.id, provider);
        judgeModelKeptOrRefused(check, res, model.id, `provider ${JSON.stringify(provider)}`);
      }
      // Streamed: every chunk that names a model names the requested one.
      const model = models[combinations.length % models.length]!;
      const provider = { sort: 'latency', order: [route], allow_fallbacks: true };
      const res = await ask(target, model.id, provider, { stream: true });
      if (res.exchange.status === 0 || res.status !== 200) {
        judgeRefusal(check, res, { id: 'ROUTE-008' });
        return;
      }
      const named = res.stream().chunks.map((c) => c.model).filter((m) => m !== undefined);
      judgeModelKept(check, res, model.id, named, `provider ${JSON.stringify(provider)}, streamed`);
    });

    test('allow_fallbacks false with an order naming no route is never answered by another model; the outcome is recorded', req('ROUTE-008', 'OBS-025', judges(judgeModelKeptOrRefused)), async ({ target, check, discovery, config }) => {
      const model = routingModel(discovery, config.profile);
      if (!model) return check.skip(noUsableReason(discovery));
      const provider = { order: [noSuchRoute(config.seed)], allow_fallbacks: false };
      const res = await ask(target, model.id, provider);
      check.observe('OBS-025', outcomeOf(res), `provider ${JSON.stringify(provider)} on ${model.id}`, res);
      judgeModelKeptOrRefused(check, res, model.id, `provider ${JSON.stringify(provider)}`);
    });

    test('allow_fallbacks false with no ranked route is refused with a section 7 error, never a substitute', req('ROUTE-005', 'ROUTE-010', 'OBS-025', judges(judgeRefusal)), async ({ target, check, discovery, config }) => {
      const cooperation = allowFallbacksCooperation(config.profile);
      if (!cooperation.judged) return check.skip(cooperation.reason);
      const model = routingModel(discovery, config.profile);
      if (!model) return check.skip(noUsableReason(discovery));
      // The only ranked route is one that cannot exist, so no ranked route is available: 7 rule 3 applies.
      const provider = { order: [noSuchRoute(config.seed)], allow_fallbacks: false };
      const res = await ask(target, model.id, provider);
      check.observe('OBS-025', outcomeOf(res), `provider ${JSON.stringify(provider)} on ${model.id}`, res);
      const served = res.status === 200 ? (res.json() as { model?: unknown } | undefined)?.model : undefined;
      check.that('ROUTE-005', res.exchange.status !== 0 && res.status !== 200, () =>
        res.status === 200
          ? `with provider ${JSON.stringify(provider)} no ranked route exists, so the request must be refused; it was served (model ${JSON.stringify(served)}) by a route that was not ranked`
          : `expected a refusal; received ${res.describe()}`, res,
      );
      judgeRefusal(check, res, { id: 'ROUTE-010' });
    });
  });
});
