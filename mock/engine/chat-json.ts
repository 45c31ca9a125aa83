// The JSON text of a chat completion (2.9) or of a stream chunk (section 6), exactly as JSON.stringify writes
// it, without JSON.stringify's walk over every object. Why: on node 20, JSON.stringify costs about a microsecond
// per chunk object, and a streamed answer sends ~25 of them; it was the largest single cost of a stream, and a
// large one of a plain answer (bench/README.md). The answers `toResponseBody` and `toChunks` build have a few
// shapes; for those the text is put together from parts: the envelope (id, object, created, model), the same in
// every chunk of a stream, serialised once per stream; the delta or message field by field when its fields are
// strings; anything else inside (tool calls, provenance, usage) by JSON.stringify. Any other value, or a shape a
// layer changed (keys added, removed, reordered, set to null), goes to JSON.stringify whole. The check is made
// on the object as it is when serialised, so edits made after it was built are always seen.

interface Envelope {
  id: unknown;
  object: unknown;
  created: unknown;
  model: unknown;
}

/** The last envelope serialised, and its text `{"id":…,"object":…,"created":…,"model":…` (no closing brace). */
let last: { envelope: Envelope; text: string } = { envelope: { id: undefined, object: undefined, created: undefined, model: undefined }, text: '' };

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype;
const isScalar = (v: unknown): boolean => typeof v === 'string' || typeof v === 'number';

/**
 * How many keys `o` has when they are the first of `names`, in that order (at least `min` of them); -1 for any
 * other keys. A for-in walk: no array of keys is built (a plain object inherits no enumerable key; one that did
 * would not match, and goes to JSON.stringify).
 */
function keysMatch(o: object, names: readonly string[], min: number): number {
  let n = 0;
  for (const k in o) {
    if (n >= names.length || k !== names[n]) return -1;
    n++;
  }
  return n >= min ? n : -1;
}

const TOP_KEYS = ['id', 'object', 'created', 'model', 'choices', 'usage'] as const;
const DELTA_KEYS = ['index', 'delta', 'finish_reason'] as const;
const MESSAGE_KEYS = ['index', 'message', 'finish_reason'] as const;

/** `"key":` of the field names met so far (a few: role, content, reasoning_content...), kept up to a bound. */
const quotedKeys = new Map<string, string>();
function quotedKey(k: string): string {
  let q = quotedKeys.get(k);
  if (q === undefined) {
    q = `${JSON.stringify(k)}:`;
    if (quotedKeys.size < 64) quotedKeys.set(k, q);
  }
  return q;
}

/** The envelope's text, or undefined when a value is not a string or number (JSON.stringify decides then). */
function envelopeText(value: Record<string, unknown>): string | undefined {
  const { id, object, created, model } = value;
  const e = last.envelope;
  if (id === e.id && object === e.object && created === e.created && model === e.model) return last.text;
  if (!isScalar(id) || !isScalar(object) || !isScalar(created) || !isScalar(model)) return undefined;
  const text = `{"id":${JSON.stringify(id)},"object":${JSON.stringify(object)},"created":${JSON.stringify(created)},"model":${JSON.stringify(model)}`;
  last = { envelope: { id, object, created, model }, text };
  return text;
}

/** A flat object of strings (a delta, a message without tool calls) field by field; any other by JSON.stringify. */
function fieldsJson(o: Record<string, unknown>): string {
  let text = '';
  for (const k in o) {
    const v = o[k];
    if (typeof v !== 'string') return JSON.stringify(o);
    text += (text === '' ? '{' : ',') + quotedKey(k) + JSON.stringify(v);
  }
  return text === '' ? '{}' : `${text}}`;
}

/** `{"index":…,"delta":{…}}` or `{"index":…,"message":{…}}`, with `"finish_reason":"…"` when set; undefined for another shape. */
function choiceJson(choice: unknown): string | undefined {
  if (!isPlainObject(choice) || typeof choice.index !== 'number') return undefined;
  let part: 'delta' | 'message' = 'delta';
  let n = keysMatch(choice, DELTA_KEYS, 2);
  if (n < 0) {
    part = 'message';
    n = keysMatch(choice, MESSAGE_KEYS, 2);
    if (n < 0) return undefined;
  }
  const finish = choice.finish_reason;
  if (n === 3 && typeof finish !== 'string') return undefined;
  const body = part === 'delta' ? choice.delta : choice.message;
  if (!isPlainObject(body)) return undefined;
  return `{"index":${JSON.stringify(choice.index)},"${part}":${fieldsJson(body)}${n === 3 ? `,"finish_reason":${JSON.stringify(finish)}` : ''}}`;
}

/** JSON.stringify(value), the same text, faster for chat completions and stream chunks. */
export function chatJson(value: unknown): string {
  if (!isPlainObject(value)) return JSON.stringify(value);
  // {envelope, choices} or {envelope, choices, usage}, in that order, with at most one choice.
  const n = keysMatch(value, TOP_KEYS, 5);
  const choices = value.choices;
  if (n < 0 || !Array.isArray(choices) || choices.length > 1 || (n === 6 && !isPlainObject(value.usage))) return JSON.stringify(value);
  const head = envelopeText(value);
  if (head === undefined) return JSON.stringify(value);
  const choice = choices.length === 1 ? choiceJson(choices[0]) : '';
  if (choice === undefined) return JSON.stringify(value);
  return `${head},"choices":[${choice}]${n === 6 ? `,"usage":${JSON.stringify(value.usage)}` : ''}}`;
}

/** JSON text of a body (a chat completion by chatJson); frozen bodies (the catalog lists, built once) are serialised once. */
const serialised = new WeakMap<object, string>();
export function jsonText(body: unknown): string {
  if (body === null || typeof body !== 'object' || !Object.isFrozen(body)) return chatJson(body);
  let text = serialised.get(body);
  if (text === undefined) {
    text = JSON.stringify(body);
    serialised.set(body, text);
  }
  return text;
}
