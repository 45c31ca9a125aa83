// The one place error responses are built: {error:{type,code,message}} with the matching status.
import { defectOn, shapeJson, VENDOR_EXTRA, variantOn } from './modes.ts';
import type { MockOptions, MockResult } from './types.ts';

export type ErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found_error'
  | 'rate_limit_error'
  | 'api_error';

/** The error `type` the mock uses for a status. */
export function typeForStatus(status: number): ErrorType {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'api_error';
  return 'invalid_request_error';
}

export interface ErrorBody {
  error: { type: string; code: string; message: string };
}

export function errorBody(status: number, code: string, message: string, type: string = typeForStatus(status)): ErrorBody {
  return { error: { type, code, message } };
}

/** A JSON error response. */
export function errorResult(
  status: number,
  code: string,
  message: string,
  extraHeaders: Record<string, string> = {},
  type?: string,
): MockResult {
  return {
    status,
    headers: { 'content-type': 'application/json', ...extraHeaders },
    kind: 'json',
    body: errorBody(status, code, message, type),
  };
}

/** Thrown inside the core to short-circuit with an error response; caught by the service layer. */
export class MockHttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'MockHttpError';
  }

  toResult(options?: MockOptions): MockResult {
    if (options) return shapeErrorResult(options, this.status, this.code, this.message, this.headers);
    return errorResult(this.status, this.code, this.message, this.headers);
  }
}

/** Statuses the variant gap-statuses picks where section 7 leaves the status open (any of them is legal). */
const GAP_STATUSES: Record<string, number> = {
  tools_not_declared: 422,
  web_search_not_supported: 422,
  web_search_output_budget_too_small: 422,
  unknown_model: 400,
  missing_api_key: 403,
  no_route_available: 409,
  request_too_large: 400,
};

const REASONS: Record<number, string> = { 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 413: 'Payload Too Large', 500: 'Internal Server Error', 503: 'Service Unavailable' };

/**
 * An error response as the mock's modes shape it: the status a defect or variant picks for the code, the
 * body shape (defects error-plain-text, error-no-code; variants extra-fields, key-order). Without modes it is
 * errorResult's.
 */
export function shapeErrorResult(
  options: MockOptions,
  status: number,
  code: string,
  message: string,
  headers: Record<string, string> = {},
): MockResult {
  let s = status;
  let c = code;
  let m = message;
  if (variantOn(options, 'gap-statuses') && GAP_STATUSES[code] !== undefined) s = GAP_STATUSES[code]!;
  if (code === 'model_unavailable' && defectOn(options, 'unavailable-500')) s = 500;
  if (code === 'model_not_found' && defectOn(options, 'deactivated-404')) s = 404;
  if (code === 'tools_not_declared' && defectOn(options, 'tools-undeclared-500')) {
    s = 500;
    c = 'upstream_error';
    m = `upstream provider returned an error: ${message}`;
  }
  if (code === 'web_search_not_supported' && defectOn(options, 'search-refusal-message')) m = 'web search is not supported by this model';
  // Defect error-plain-text: the authorization gateway in front answers its refusals (403) as plain text.
  if (defectOn(options, 'error-plain-text') && s === 403) {
    return { status: s, headers: { ...headers, 'content-type': 'text/plain; charset=utf-8' }, kind: 'text', body: `${s} ${REASONS[s] ?? 'Error'}: ${c}` };
  }
  const body = errorBody(s, c, m) as unknown as { error: Record<string, unknown> } & Record<string, unknown>;
  // Defect error-no-code: upstream failures (5xx) are passed through with type and message only.
  if (defectOn(options, 'error-no-code') && s >= 500) delete body.error.code;
  if (variantOn(options, 'extra-fields')) {
    Object.assign(body.error, VENDOR_EXTRA);
    Object.assign(body, VENDOR_EXTRA);
  }
  return { status: s, headers: { 'content-type': 'application/json', ...headers }, kind: 'json', body: shapeJson(options, body) };
}

export const fail = (status: number, code: string, message: string, headers?: Record<string, string>): never => {
  throw new MockHttpError(status, code, message, headers);
};

/** Fixed messages of section 7 (exact text). */
export const MESSAGES = {
  webSearchNotSupported: 'hosted web search is unavailable for this request',
  contextSize: 'search_context_size must be one of: low, medium, high',
  locationType: 'user_location.type must be "approximate"',
  locationMixed: 'user_location must not mix nested approximate and flat fields',
  locationMalformed: 'user_location has unknown or malformed fields',
  budget: (n: number, m: number): string =>
    `hosted web search on this model requires an output budget of at least ${n} tokens; ${m} was requested`,
} as const;
