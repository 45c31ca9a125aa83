// The names a client's tests use to reach the harness: the control API's root and the header that scopes a
// request to one test (mock/README.md, "Control API").

/** The request header that scopes faults, scripts and journal entries to one test. */
export const TEST_ID_HEADER = 'x-chatconform-test-id';

/** The root of the control API: at the root of the origin, never under the mount prefix nor under /v1. */
export const CONTROL_ROOT = '/_chatconform';

export const isControlPath = (path: string): boolean => path === CONTROL_ROOT || path.startsWith(`${CONTROL_ROOT}/`);

/**
 * The path a request is served as, from its target as sent and the target's path after URL normalisation: the
 * normalised path, except where resolving dot segments led into the control API from a target spelled outside it
 * (`/v1/../_chatconform/faults`, which a gateway forwarding only /v1/ lets through). That one is served as it is
 * spelled, a path that names no endpoint.
 */
export function servedPath(target: string, normalised: string): string {
  if (!isControlPath(normalised) || isControlPath(target)) return normalised;
  return target.split(/[?#]/, 1)[0]!;
}
