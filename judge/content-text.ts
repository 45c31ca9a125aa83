// The text of a message's `content`: 2.9 gives it as "string or array", and 2.5's text parts are the array's text.
// Every place the judge reads an answer's text reads it here, so an answer given as parts is read, never taken for
// an empty one.

/**
 * A string as it is; an array as the `text` of its text parts, joined with nothing between them (the message's final
 * text, which citation offsets count); undefined for anything else (absent, null, another type).
 */
export function contentText(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  return content.map((p) => (p !== null && typeof p === 'object' && !Array.isArray(p) && (p as { type?: unknown }).type === 'text' && typeof (p as { text?: unknown }).text === 'string' ? (p as { text: string }).text : '')).join('');
}
