// Legal variant: the statuses section 7 leaves open, answered with other legal statuses.
import { variant } from '../mode.ts';

/** Statuses picked where section 7 leaves the status open (any of them is legal). */
const GAP_STATUSES: Record<string, number> = {
  tools_not_declared: 422,
  web_search_not_supported: 422,
  web_search_output_budget_too_small: 422,
  unknown_model: 400,
  missing_api_key: 403,
  no_route_available: 409,
  request_too_large: 400,
};

export const GAP_STATUSES_VARIANT = variant({
  name: 'gap-statuses',
  allows: '7 gaps (statuses the contract leaves open)',
  description:
    '422 for tool calls without declared tools, web_search_not_supported and the output-budget refusal; 400 for an unknown model; 403 for a missing credential; 409 for an allow_fallbacks refusal; 400 for an oversized body',
  stages: () => ({
    error: (next) => (input) => {
      const status = GAP_STATUSES[input.code];
      return next(status === undefined ? input : { ...input, status });
    },
  }),
});
