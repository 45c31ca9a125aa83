// Arbitraries of web_search_options (2.7): valid user_location objects from the grammar of the spec, invalid ones
// labelled with their one fault, and search_context_size values.
//
// Countries and time zones come from the runtime, not from a hand-written list: ISO 3166-1 alpha-2 countries are
// the AA..ZZ codes Intl.DisplayNames names, that are their own canonical form (deprecated codes like UK, BU or
// YU canonicalise to another), outside the user-assigned ranges, and (where the runtime tells) that have a time
// zone of their own (which drops groupings such as EU, UN or EZ). Time zones are Intl.supportedValuesOf.
//
// Only faults the spec makes unambiguous are generated as invalid: not a lower-case country (arguably still
// "two letters"), not an unassigned two-letter code, not a long city or region (the bound is a gap of the spec),
// not a case variant of a field name or of a time-zone name, not `user_location: null` nor a missing `type`
// (which message applies is not clear), not `search_context_size: null` nor a location field sent as null (arguably
// "omitted": decoders that read null as absent are common, and web-search.spec.ts judges no null).
//
// Valid city and region names are short as web-search.spec.ts's are (SHORT_PLACE_BYTES): a longer one may meet the
// target's own bound, which section 8 leaves open, so a refusal of it would not be a fault.
import fc from 'fast-check';
import { SHORT_PLACE_BYTES } from '../../requests/search.ts';

type Json = Record<string, unknown>;

export const LOCATION_FIELDS = ['country', 'city', 'region', 'timezone'] as const;
export type LocationField = (typeof LOCATION_FIELDS)[number];
export type LocationFields = Partial<Record<LocationField, string>>;

// ---------------------------------------------------------------------------------------------------------
// Reference data from the runtime

let countries: string[] | undefined;
let zones: string[] | undefined;

/** ISO 3166-1 user-assigned code elements: AA, QM..QZ, XA..XZ, ZZ. */
const userAssigned = (code: string) => code === 'AA' || code === 'ZZ' || /^Q[M-Z]$/.test(code) || code[0] === 'X';

function timeZonesOf(code: string): string[] | undefined {
  try {
    const locale = new Intl.Locale(`und-${code}`) as Intl.Locale & { timeZones?: string[]; getTimeZones?: () => string[] };
    return locale.getTimeZones?.() ?? locale.timeZones;
  } catch {
    return undefined;
  }
}

/** Assigned ISO 3166-1 alpha-2 codes, as the runtime knows them. */
export function isoCountries(): string[] {
  if (countries) return countries;
  const names = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });
  const out: string[] = [];
  for (let a = 65; a <= 90; a++) {
    for (let b = 65; b <= 90; b++) {
      const code = String.fromCharCode(a, b);
      if (userAssigned(code) || names.of(code) === undefined) continue;
      if (Intl.getCanonicalLocales(`und-${code}`)[0] !== `und-${code}`) continue;
      const tz = timeZonesOf(code);
      if (tz !== undefined && tz.length === 0) continue;
      out.push(code);
    }
  }
  countries = out;
  return out;
}

/** IANA time-zone names, as the runtime knows them. */
export function ianaTimeZones(): string[] {
  zones ??= Intl.supportedValuesOf('timeZone');
  return zones;
}

/** Whether the runtime rejects a time-zone name (so it is certainly not one). */
function runtimeRejects(name: string): boolean {
  if (ianaTimeZones().some((z) => z.toLowerCase() === name.toLowerCase())) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return false;
  } catch {
    return true;
  }
}

// ---------------------------------------------------------------------------------------------------------
// Valid locations

export const country = (): fc.Arbitrary<string> => fc.constantFrom(...isoCountries());
export const timeZone = (): fc.Arbitrary<string> => fc.constantFrom(...ianaTimeZones());

const LETTERS = [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ', ...'éèüöñçøåãłśžß', ...'東京大阪北', ...'москва', ...'القاهرة'];

/** `name` cut to at most `bytes` UTF-8 bytes, at a character boundary, without a separator at its end. */
function cutToBytes(name: string, bytes: number): string {
  const utf8 = new TextEncoder();
  let out = '';
  let used = 0;
  for (const ch of name) {
    used += utf8.encode(ch).length;
    if (used > bytes) break;
    out += ch;
  }
  return out.replace(/[ -]+$/, '');
}

/**
 * A short place name (at most SHORT_PLACE_BYTES UTF-8 bytes, at least one letter): words of letters (Latin, accented,
 * CJK, Cyrillic, Arabic) joined by a space or a hyphen.
 */
export const placeName = (): fc.Arbitrary<string> =>
  fc
    .tuple(fc.array(fc.string({ unit: fc.constantFrom(...LETTERS), minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 3 }), fc.constantFrom(' ', '-'))
    .map(([words, sep]) => cutToBytes(words.join(sep), SHORT_PLACE_BYTES));

/** One to four location fields, each valid. */
export const locationFields = (): fc.Arbitrary<LocationFields> =>
  fc
    .record({ country: country(), city: placeName(), region: placeName(), timezone: timeZone() }, { requiredKeys: [] })
    .filter((f) => Object.keys(f).length > 0);

export type LocationForm = 'nested' | 'flat';

export interface ValidLocation {
  form: LocationForm;
  fields: LocationFields;
  value: Json;
}

function shape(form: LocationForm, fields: LocationFields, type: unknown, typeLast: boolean): Json {
  const body: Json = form === 'nested' ? { approximate: fields } : { ...fields };
  return typeLast ? { ...body, type } : { type, ...body };
}

/** `{type: "approximate", approximate: {…}}` or `{type: "approximate", …fields}`, `type` first or last. */
export const validLocation = (): fc.Arbitrary<ValidLocation> =>
  fc
    .record({ form: fc.constantFrom<LocationForm>('nested', 'flat'), fields: locationFields(), typeLast: fc.boolean() })
    .map(({ form, fields, typeLast }) => ({ form, fields, value: shape(form, fields, 'approximate', typeLast) }));

// ---------------------------------------------------------------------------------------------------------
// Invalid locations: exactly one fault each

export type LocationFault = 'wrong-type' | 'mixed' | 'unknown-field' | 'malformed-country' | 'bogus-timezone' | 'wrong-json-type';

export interface InvalidLocation {
  fault: LocationFault;
  /** What is wrong, in words. */
  label: string;
  value: Json;
}

/** A string that is not `approximate`. */
const wrongTypeValue = fc.oneof(
  fc.constantFrom('exact', 'precise', 'city', 'country', 'approx', 'approximately', 'Approximate', 'APPROXIMATE', 'approximate ', ''),
  fc.string({ unit: 'grapheme-ascii', maxLength: 12 }).filter((s) => s !== 'approximate'),
);

/** Field names no location has; never a case variant of a known one (case-insensitive decoders would read those). */
const unknownFieldName = fc
  .oneof(fc.constantFrom('zip', 'postal_code', 'latitude', 'longitude', 'street', 'state', 'address', 'country_code', 'time_zone', 'precision', '__proto__', 'constructor'), fc.stringMatching(/^x_[a-z]{1,8}$/))
  .filter((n) => !['type', 'approximate', ...LOCATION_FIELDS].includes(n.toLowerCase()));

/** Not exactly two letters: other lengths, digits, punctuation (never lower-case letters, never an unassigned pair). */
const malformedCountry = fc.oneof(
  { weight: 3, arbitrary: fc.stringMatching(/^[A-Z]{3}$/) },
  fc.stringMatching(/^[A-Z]$/),
  fc.stringMatching(/^[A-Z]{4,5}$/),
  fc.constant(''),
  fc.stringMatching(/^[0-9]{2}$/),
  fc.stringMatching(/^([A-Z][0-9]|[0-9][A-Z])$/),
  fc.stringMatching(/^[A-Z][-._ /]$/),
);

/** Names that are not IANA time zones (and that the runtime rejects). */
const bogusTimeZone = fc
  .oneof(
    fc.constantFrom('Mars/Olympus_Mons', 'Atlantis/Poseidonia', 'Europe/Atlantis', 'America/Gotham', 'UTC+02:00', 'GMT+25', 'Europe/', '/Paris', 'Europe//Paris', 'Not a zone', ''),
    fc.tuple(fc.constantFrom('Mars', 'Atlantis', 'Narnia', 'Middle_Earth'), fc.stringMatching(/^[A-Z][a-z]{2,9}$/)).map(([a, b]) => `${a}/${b}`),
  )
  .filter(runtimeRejects);

/** A JSON value of another type than string. */
const notAString = fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.array(fc.string({ maxLength: 4 }), { maxLength: 2 }), fc.constant({}));

/** The location fields present in a valid location, and where they sit. */
function fieldsOf(v: ValidLocation): { holder: Json; keys: LocationField[] } {
  const holder = v.form === 'nested' ? (v.value.approximate as Json) : v.value;
  return { holder, keys: LOCATION_FIELDS.filter((k) => k in holder) };
}

function clone(v: ValidLocation): ValidLocation {
  return { ...v, value: structuredClone(v.value) };
}

/** Set a key as an own, enumerable property (so `__proto__` is a field, not the prototype). */
function defineField(o: Json, key: string, value: unknown): void {
  Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
}

export const invalidLocation = (): fc.Arbitrary<InvalidLocation> =>
  fc.oneof(
    // type is a string other than "approximate"
    fc.record({ base: validLocation(), type: wrongTypeValue }).map(({ base, type }): InvalidLocation => {
      const value = { ...base.value, type };
      return { fault: 'wrong-type', label: `type ${JSON.stringify(type)}`, value };
    }),
    // a nested approximate object (with fields) and flat fields
    fc.record({ nested: locationFields(), flat: locationFields() }).map(({ nested, flat }): InvalidLocation => ({
      fault: 'mixed',
      label: `nested approximate {${Object.keys(nested).join(', ')}} beside flat ${Object.keys(flat).join(', ')}`,
      value: { type: 'approximate', approximate: nested, ...flat },
    })),
    // an unknown field: beside the flat fields, or inside the nested object
    fc.record({ base: validLocation(), name: unknownFieldName, v: fc.oneof(fc.string({ maxLength: 8 }), fc.integer()) }).map(({ base, name, v }): InvalidLocation => {
      const c = clone(base);
      const holder = c.form === 'nested' ? (c.value.approximate as Json) : c.value;
      defineField(holder, name, v);
      return { fault: 'unknown-field', label: `unknown field ${JSON.stringify(name)} ${c.form === 'nested' ? 'in the nested object' : 'beside the flat fields'}`, value: c.value };
    }),
    // country not exactly two letters
    fc.record({ base: validLocation(), bad: malformedCountry }).map(({ base, bad }): InvalidLocation => {
      const c = clone(base);
      fieldsOf(c).holder.country = bad;
      return { fault: 'malformed-country', label: `country ${JSON.stringify(bad)}`, value: c.value };
    }),
    // timezone not an IANA name
    fc.record({ base: validLocation(), bad: bogusTimeZone }).map(({ base, bad }): InvalidLocation => {
      const c = clone(base);
      fieldsOf(c).holder.timezone = bad;
      return { fault: 'bogus-timezone', label: `timezone ${JSON.stringify(bad)}`, value: c.value };
    }),
    // a location field, or the nested object, of the wrong JSON type
    fc
      .record({ base: validLocation(), field: fc.constantFrom(...LOCATION_FIELDS), bad: notAString, nestedBad: fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean(), fc.constant([])), which: fc.boolean() })
      .map(({ base, field, bad, nestedBad, which }): InvalidLocation => {
        if (which && base.form === 'nested') {
          return { fault: 'wrong-json-type', label: `approximate as ${JSON.stringify(nestedBad)}`, value: { type: 'approximate', approximate: nestedBad } };
        }
        const c = clone(base);
        fieldsOf(c).holder[field] = bad;
        return { fault: 'wrong-json-type', label: `${field} as ${JSON.stringify(bad)}`, value: c.value };
      }),
  );

// ---------------------------------------------------------------------------------------------------------
// search_context_size

export const CONTEXT_SIZES = ['low', 'medium', 'high'] as const;

export type ContextSizeCase = { valid: true; value?: (typeof CONTEXT_SIZES)[number] } | { valid: false; value: unknown };

/** low, medium, high or absent (valid); any other JSON value but null (invalid). */
export const contextSize = (): fc.Arbitrary<ContextSizeCase> =>
  fc.oneof(
    { weight: 1, arbitrary: fc.constantFrom<ContextSizeCase>({ valid: true }, ...CONTEXT_SIZES.map((value) => ({ valid: true as const, value }))) },
    {
      weight: 3,
      arbitrary: fc
        .oneof(
          fc.constantFrom('LOW', 'Medium', 'HIGH', 'max', 'maximum', 'minimal', 'none', 'auto', 'default', '', ' low', 'high '),
          fc.string({ maxLength: 10 }),
          fc.integer(),
          fc.boolean(),
          fc.constant(['low']),
          fc.constant({ size: 'low' }),
        )
        .filter((v) => !(CONTEXT_SIZES as readonly unknown[]).includes(v))
        .map((value): ContextSizeCase => ({ valid: false, value })),
    },
  );
