// Small helpers the SDK client tests share.
import { MOCK_MODELS, fixtureEntry } from '../../../mock/keys-and-models.ts';

/** What the call threw (fails the test when it resolved). */
export async function thrown(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('expected the call to throw');
}

/** A route of MOCK_MODELS.routes that is down (hidden fixture attribute): with allow_fallbacks false, 503 no_route_available. */
export function downRoute(): string {
  const route = fixtureEntry(MOCK_MODELS.routes)?.mock.routes.find((r) => !r.available);
  if (!route) throw new Error(`the fixture ${MOCK_MODELS.routes} has no route that is down`);
  return route.name;
}
