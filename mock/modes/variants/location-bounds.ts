// Legal variant: user_location decoded as a real server with its own choices does, where 2.7 and section 8 leave
// them open: a tight length bound on city and region, and a field sent as null read as absent.
import { MESSAGES, MockHttpError } from '../../core/errors.ts';
import { LOCATION_FIELDS } from '../../core/request.ts';
import { variant } from '../mode.ts';

/** The bound on city and region, in UTF-8 bytes: above every short name the suite's valid locations carry. */
const PLACE_BYTES = 16;
const utf8 = new TextEncoder();

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The objects of a user_location that hold location fields: itself and its nested `approximate`. */
function holders(body: unknown): Json[] {
  const options = isObject(body) ? body.web_search_options : undefined;
  const loc = isObject(options) ? options.user_location : undefined;
  if (!isObject(loc)) return [];
  return isObject(loc.approximate) ? [loc, loc.approximate] : [loc];
}

export const LOCATION_BOUNDS_VARIANT = variant({
  name: 'location-bounds',
  allows: '8 gaps (the maximum lengths of city and region) and 2.7 (strict decoding; null is no value)',
  description: `user_location city and region longer than ${PLACE_BYTES} UTF-8 bytes are refused as malformed (400 invalid_web_search_options); a location field sent as null is read as absent, as decoders that map null to a missing value do`,
  stages: () => ({
    parse: (next) => (input) => {
      let body: unknown;
      try {
        body = JSON.parse(new TextDecoder().decode(input.bytes));
      } catch {
        return next(input); // not JSON: the contract's own answer
      }
      let dropped = false;
      for (const h of holders(body)) {
        for (const f of LOCATION_FIELDS) {
          if (Object.hasOwn(h, f) && h[f] === null) {
            delete h[f];
            dropped = true;
          }
        }
      }
      const req = next(dropped ? { ...input, bytes: utf8.encode(JSON.stringify(body)) } : input);
      // After the contract's own rows: a long name is the malformed-field row, as 2.7 makes a value past the bound.
      for (const h of holders(body)) {
        for (const f of ['city', 'region'] as const) {
          const v = h[f];
          if (typeof v === 'string' && utf8.encode(v).length > PLACE_BYTES) throw new MockHttpError(400, 'invalid_web_search_options', MESSAGES.locationMalformed);
        }
      }
      return req;
    },
  }),
});
