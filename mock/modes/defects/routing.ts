// Defect modes: routing (2.8, 4.3 rules 4-5, 7 rule 3). Each breaks the requirement it names, as real servers do.
import type { ChatRequest } from '../../core/request.ts';
import { defect } from '../mode.ts';
import { aliasOf, rankedRouteAvailable } from '../support.ts';

/** The request as a route sees it when allow_fallbacks is not forwarded. */
function withoutAllowFallbacks(req: ChatRequest): ChatRequest {
  if (req.provider?.allow_fallbacks === undefined) return req;
  const { allow_fallbacks: _a, ...provider } = req.provider;
  return { ...req, provider };
}

export const ROUTING_DEFECTS = [
  defect({
    name: 'allow-fallbacks-ignored',
    tier: 'extended',
    breaks: 'ROUTE-005',
    section: 'routing',
    description: 'provider.allow_fallbacks false is not forwarded: with no ranked route up, an unranked route serves',
    stages: () => ({ route: (next) => (input) => next({ ...input, req: withoutAllowFallbacks(input.req) }) }),
  }),
  defect({
    name: 'routing-substitute-model',
    breaks: 'ROUTE-008',
    section: 'routing',
    description: 'when no route the preferences rank can serve, another catalog entry answers (the response names the substitute)',
    stages: (ctx) => ({
      route: (next) => (input) => {
        const { req, entry, search } = input;
        if (req.provider === undefined || rankedRouteAvailable(req, entry, search)) return next(input);
        const { route } = next({ ...input, req: withoutAllowFallbacks(req) });
        const catalog = ctx.i.catalog;
        return { route, entry: catalog.byId.get(aliasOf(catalog, entry.id)) ?? entry };
      },
    }),
  }),
] as const;
