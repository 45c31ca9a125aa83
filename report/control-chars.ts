// Raw control bytes from a target (a BEL, a NUL, an escape sequence, a C1 byte decoded as Latin-1, a lone UTF-16
// surrogate) are shown as visible escapes, `\u0007`, in every human-readable report: never executed by a
// terminal, never dropped by an XML parser, never turned into U+FFFD. Tab, newline and carriage return stay.
const CONTROLS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

export function escapeControls(text: string): string {
  return text.replace(CONTROLS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
