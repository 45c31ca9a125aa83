// Error stage (section 7): the one place error responses are built, {error:{type,code,message}} with the
// matching status.
import type { CoreResult } from './http.ts';

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

// honours: ERR-001, ERR-002, ERR-003, ERR-004 (every error body: {error: {type, code, message}}, strings)
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
): CoreResult {
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

  toResult(): CoreResult {
    return errorResult(this.status, this.code, this.message, this.headers);
  }
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
