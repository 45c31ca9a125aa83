// The names a client's tests use to reach the harness: the control API's root and the header that scopes a
// request to one test (mock/README.md, "Control API").

/** The request header that scopes faults, scripts and journal entries to one test. */
export const TEST_ID_HEADER = 'x-chatconform-test-id';

/** The root of the control API: at the root of the origin, never under the mount prefix nor under /v1. */
export const CONTROL_ROOT = '/_chatconform';

export const isControlPath = (path: string): boolean => path === CONTROL_ROOT || path.startsWith(`${CONTROL_ROOT}/`);
