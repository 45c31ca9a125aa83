// Routing preferences (2.8): the probes the routing tests send, and when the suite may judge an
// allow_fallbacks refusal. Route names are never published (the catalog deliberately names no backend), so
// the suite cannot name a route that exists; it can always name one that cannot exist.
import type { Profile } from '../../../run/profile.ts';

/** A route name no target can have: the kit's prefix and the run's seed. */
export function noSuchRoute(seed: number): string {
  return `chatconform-no-such-route-${seed.toString(36)}`;
}

/**
 * provider.sort values to try. Allowed values are a gap (4.3); these are the ranking preferences the widely
 * used chat-completions routers name, plus one no target can know. A target may refuse any of them.
 */
export function sortProbes(seed: number): string[] {
  return ['price', 'throughput', 'latency', `chatconform-unknown-sort-${seed.toString(36)}`];
}

/** provider.order shapes to try, by element type (a gap, 4.3). None names a route that can exist. */
export function orderProbes(seed: number): { elementType: string; order: unknown[] }[] {
  const name = noSuchRoute(seed);
  return [
    { elementType: 'none (empty array)', order: [] },
    { elementType: 'string', order: [name] },
    { elementType: 'object', order: [{ name }] },
  ];
}

/**
 * Whether the suite may judge ROUTE-005 and ROUTE-010 (an allow_fallbacks refusal) on this target.
 *
 * Not from the black box: 2.8 makes every provider field "a preference … honoured only where that route
 * implements it. None is a guarantee", and the element type of `order` is a gap, so a target that serves a
 * request carrying allow_fallbacks false and an order of unknown names may be one whose routes do not
 * implement allow_fallbacks, or one that reads order elements as something other than route names. Section
 * 7 rule 3 binds a target that does implement it; only the target's cooperation says that it does.
 *
 * The profile has no routing field yet; a profile with scenarioHeaders true describes a target that
 * implements the reference mock's documented behaviour, allow_fallbacks included, and is taken to cooperate.
 */
export function allowFallbacksCooperation(profile: Profile): { judged: boolean; reason: string } {
  if (profile.routing?.allowFallbacks === true) return { judged: true, reason: 'the profile declares that allow_fallbacks false without a ranked route is refused (routing.allowFallbacks)' };
  return {
    judged: false,
    reason:
      'whether this target implements provider.allow_fallbacks is not black-box observable (2.8: every provider field is a preference ' +
      'honoured only where the serving route implements it; the element type of order is a gap) and the profile does not declare it (routing.allowFallbacks)',
  };
}
