// The JSON text of a stream chunk (section 6), exactly as JSON.stringify writes it, without JSON.stringify's walk
// over the chunk object. Why: on node 20, JSON.stringify costs about a microsecond per chunk object, and a
// streamed answer sends ~25 of them; that was the largest single cost of a stream (bench/README.md). The chunks
// `toChunks` builds have a handful of shapes; for those the text is put together from parts: the envelope (id,
// object, created, model), the same in every chunk of a stream, serialised once per stream, and the delta's one
// string field. Anything else (a tool-call delta, provenance, a chunk a layer reshaped or edited) is
// JSON.stringify'd as before. The check is on the object as it is when encoded, so edits made after `toChunks`
// are always seen.

const ENVELOPE_KEYS = ['id', 'object', 'created', 'model'] as const;

/** The last envelope serialised: its four values and `{"id":…,"object":…,"created":…,"model":…` (no brace). */
let envelope: { values: unknown[]; text: string } = { values: [], text: '' };

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype;

/** The envelope's text, or undefined when a value is not a string or number (JSON.stringify decides then). */
function envelopeText(chunk: Record<string, unknown>): string | undefined {
  const v = envelope.values;
  if (chunk.id === v[0] && chunk.object === v[1] && chunk.created === v[2] && chunk.model === v[3]) return envelope.text;
  const values = ENVELOPE_KEYS.map((k) => chunk[k]);
  if (!values.every((x) => typeof x === 'string' || typeof x === 'number')) return undefined;
  envelope = { values, text: ENVELOPE_KEYS.map((k, i) => `${i === 0 ? '{' : ','}"${k}":${JSON.stringify(values[i])}`).join('') };
  return envelope.text;
}

/** `{"index":0,"delta":{…}}` (with `"finish_reason":"…"` when set), or undefined for another shape. */
function choiceText(choice: unknown): string | undefined {
  if (!isPlainObject(choice)) return undefined;
  const keys = Object.keys(choice);
  if (keys[0] !== 'index' || keys[1] !== 'delta' || keys.length > 3 || typeof choice.index !== 'number') return undefined;
  const finish = keys.length === 3 ? choice.finish_reason : undefined;
  if (keys.length === 3 && (keys[2] !== 'finish_reason' || typeof finish !== 'string')) return undefined;
  const delta = choice.delta;
  if (!isPlainObject(delta)) return undefined;
  const fields = Object.keys(delta);
  let deltaText: string;
  if (fields.length === 0) deltaText = '{}';
  else {
    // One string field: the role, a content or reasoning delta.
    const value = delta[fields[0]!];
    if (fields.length !== 1 || typeof value !== 'string') return undefined;
    deltaText = `{${JSON.stringify(fields[0])}:${JSON.stringify(value)}}`;
  }
  return `{"index":${JSON.stringify(choice.index)},"delta":${deltaText}${finish === undefined ? '' : `,"finish_reason":${JSON.stringify(finish)}`}}`;
}

/** JSON.stringify(payload), the same text, faster for the common chunks of a stream. */
export function chunkJson(payload: unknown): string {
  if (!isPlainObject(payload)) return JSON.stringify(payload);
  const keys = Object.keys(payload);
  const choices = payload.choices;
  // {envelope, choices} or {envelope, choices: [], usage}, in that order.
  const shaped =
    keys.length >= 5 &&
    keys.length <= 6 &&
    keys[0] === 'id' &&
    keys[1] === 'object' &&
    keys[2] === 'created' &&
    keys[3] === 'model' &&
    keys[4] === 'choices' &&
    Array.isArray(choices) &&
    (keys.length === 5 ? choices.length === 1 : keys[5] === 'usage' && choices.length === 0 && isPlainObject(payload.usage));
  const head = shaped ? envelopeText(payload) : undefined;
  if (head === undefined) return JSON.stringify(payload);
  if (keys.length === 6) return `${head},"choices":[],"usage":${JSON.stringify(payload.usage)}}`;
  const choice = choiceText((choices as unknown[])[0]);
  return choice === undefined ? JSON.stringify(payload) : `${head},"choices":[${choice}]}`;
}
