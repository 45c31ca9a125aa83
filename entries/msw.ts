// `chatconform/msw`: the reference mock as MSW request handlers, for `setupServer(...handlers)` in a client's own
// tests (no server listening). They answer any origin and any path prefix before /v1/. The fixture keys and
// model ids come along, so a test needs no other import of the kit.
export { createHandlers, handlers, type MockOptions } from '../mock/index.ts';
export * from '../mock/keys-and-models.ts';
