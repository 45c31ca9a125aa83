// Tool calling: which tools the mock calls, and arguments generated from each tool's parameters JSON Schema.
import { MockHttpError } from './errors.ts';
import type { ChatRequest, FunctionTool, RequestMessage, ToolCall } from './request.ts';
import { digest, prng } from './tokens.ts';

export function functionTools(req: ChatRequest): FunctionTool[] {
  return (req.tools ?? []).filter((t): t is FunctionTool => t.type === 'function');
}

/** Text of a message's content (text parts joined). */
export function messageText(m: RequestMessage): string {
  if (typeof m.content === 'string') return m.content;
  return m.content.map((p) => (p.type === 'text' && typeof p.text === 'string' ? p.text : '')).join('\n');
}

/**
 * Conversation rules on tools (section 4.3 rule 3; tool_call_id answering a prior call):
 * - a message carrying tool_calls when no function tool is declared: 400 tools_not_declared;
 * - a `tool` message must carry a tool_call_id matching the id of a call in an earlier message: 400.
 */
export function checkToolConversation(req: ChatRequest): void {
  const declared = functionTools(req).length > 0;
  const seen = new Set<string>();
  req.messages.forEach((m, i) => {
    if (m.tool_calls !== undefined && m.tool_calls.length > 0) {
      if (!declared) {
        throw new MockHttpError(
          400,
          'tools_not_declared',
          `messages[${i}] carries tool_calls but the request declares no tools; declare them in "tools"`,
        );
      }
      for (const c of m.tool_calls) seen.add(c.id);
    }
    if (m.role === 'tool') {
      if (m.tool_call_id === undefined) {
        throw new MockHttpError(400, 'invalid_request', `invalid request: messages[${i}].tool_call_id is required on a tool message`);
      }
      if (!seen.has(m.tool_call_id)) {
        throw new MockHttpError(
          400,
          'unknown_tool_call_id',
          `messages[${i}].tool_call_id "${m.tool_call_id}" does not answer any earlier tool call id`,
        );
      }
    }
  });
}

/**
 * The tools to call, or [] for a text answer. Rules (documented in mock/README.md):
 * - no function tools, tool_choice "none", or the last message is a tool result: text;
 * - an object tool_choice names one function: that one (400 if it is not declared);
 * - "auto" (the default) and "required": every declared function whose name appears in the last user
 *   message, in declaration order (parallel calls); when none is named, the first declared function.
 */
export function chooseTools(req: ChatRequest): FunctionTool[] {
  const tools = functionTools(req);
  const choice = req.tool_choice ?? 'auto';
  if (typeof choice === 'object') {
    const name = choice.function?.name;
    if (choice.type !== 'function' || typeof name !== 'string') {
      throw new MockHttpError(
        400,
        'invalid_request',
        'invalid request: tool_choice object must be {"type":"function","function":{"name":"<declared function>"}}',
      );
    }
    const tool = tools.find((t) => t.function.name === name);
    if (!tool) {
      throw new MockHttpError(400, 'invalid_request', `invalid request: tool_choice names function "${name}", which is not declared in tools`);
    }
    return lastIsToolResult(req) ? [] : [tool];
  }
  if (choice === 'required' && tools.length === 0) {
    throw new MockHttpError(400, 'invalid_request', 'invalid request: tool_choice is "required" but no function tools are declared');
  }
  if (tools.length === 0 || choice === 'none' || lastIsToolResult(req)) return [];
  const lastUser = [...req.messages].reverse().find((m) => m.role === 'user');
  const text = lastUser ? messageText(lastUser) : '';
  const named = tools.filter((t) => new RegExp(`\\b${escapeRe(t.function.name)}\\b`).test(text));
  return named.length > 0 ? named : [tools[0]!];
}

function lastIsToolResult(req: ChatRequest): boolean {
  return req.messages[req.messages.length - 1]?.role === 'tool';
}

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Tool calls for the chosen tools; ids and arguments derive from the request hash. */
export function buildToolCalls(tools: FunctionTool[], seed: string): ToolCall[] {
  return tools.map((t, i) => {
    const id = `call_${digest(`${seed}:${i}:${t.function.name}`)}`;
    const rnd = prng(parseInt(digest(`${seed}:${t.function.name}`).slice(0, 8), 16));
    const params = t.function.parameters;
    const args = params === undefined ? {} : valueForSchema(params, rnd, t.function.name, 0);
    return { id, type: 'function', function: { name: t.function.name, arguments: JSON.stringify(args ?? {}) } };
  });
}

type Schema = Record<string, unknown>;

const asSchema = (s: unknown): Schema => (s !== null && typeof s === 'object' && !Array.isArray(s) ? (s as Schema) : {});

/**
 * A value satisfying a JSON Schema, for the keywords tool parameters use: type (or a list), enum, const,
 * properties/required, items/minItems/maxItems, minimum/maximum (and exclusive forms), multipleOf for integers,
 * minLength/maxLength, anyOf/oneOf (first branch), allOf (merged), $ref to #/$defs or #/definitions.
 */
export function valueForSchema(schema: unknown, rnd: () => number, name: string, depth: number, root: unknown = schema): unknown {
  let s = asSchema(schema);
  if (typeof s.$ref === 'string') s = { ...resolveRef(root, s.$ref), ...withoutRef(s) };
  if (Array.isArray(s.allOf)) {
    s = s.allOf.reduce<Schema>((acc, sub) => mergeSchemas(acc, asSchema(sub)), withoutKey(s, 'allOf'));
  }
  if ('const' in s) return s.const;
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[Math.floor(rnd() * s.enum.length)];
  const branches = (s.anyOf ?? s.oneOf) as unknown[] | undefined;
  if (Array.isArray(branches) && branches.length > 0) return valueForSchema(branches[0], rnd, name, depth, root);
  let type = s.type;
  if (Array.isArray(type)) type = type.find((t) => t !== 'null') ?? type[0];
  if (type === undefined) {
    if (s.properties !== undefined || s.required !== undefined) type = 'object';
    else if (s.items !== undefined) type = 'array';
    else type = 'string';
  }
  switch (type) {
    case 'object': {
      const props = asSchema(s.properties);
      const required = Array.isArray(s.required) ? (s.required as unknown[]).filter((r): r is string => typeof r === 'string') : [];
      const out: Record<string, unknown> = {};
      const keys = depth > 4 ? required : [...new Set([...Object.keys(props), ...required])];
      for (const k of keys) out[k] = valueForSchema(props[k] ?? {}, rnd, k, depth + 1, root);
      return out;
    }
    case 'array': {
      const min = typeof s.minItems === 'number' ? s.minItems : 1;
      const max = typeof s.maxItems === 'number' ? s.maxItems : Math.max(min, 2);
      const n = depth > 4 ? min : Math.min(max, Math.max(min, 1 + Math.floor(rnd() * 2)));
      return Array.from({ length: n }, (_, i) => valueForSchema(s.items ?? {}, rnd, `${name}${i}`, depth + 1, root));
    }
    case 'integer':
    case 'number': {
      let lo = typeof s.minimum === 'number' ? s.minimum : typeof s.exclusiveMinimum === 'number' ? s.exclusiveMinimum + (type === 'integer' ? 1 : 0.5) : 0;
      let hi = typeof s.maximum === 'number' ? s.maximum : typeof s.exclusiveMaximum === 'number' ? s.exclusiveMaximum - (type === 'integer' ? 1 : 0.5) : lo + 100;
      if (hi < lo) hi = lo;
      if (type === 'integer') {
        lo = Math.ceil(lo);
        hi = Math.floor(hi);
        const step = typeof s.multipleOf === 'number' && Number.isInteger(s.multipleOf) && s.multipleOf > 0 ? s.multipleOf : 1;
        const first = Math.ceil(lo / step) * step;
        const count = Math.max(0, Math.floor((hi - first) / step));
        return first + step * Math.floor(rnd() * (count + 1));
      }
      return Math.round((lo + rnd() * (hi - lo)) * 100) / 100;
    }
    case 'boolean':
      return rnd() < 0.5;
    case 'null':
      return null;
    default: {
      const min = typeof s.minLength === 'number' ? s.minLength : 0;
      const max = typeof s.maxLength === 'number' ? s.maxLength : Infinity;
      let str = s.format === 'date' ? '2024-01-15' : s.format === 'date-time' ? '2024-01-15T12:00:00Z' : s.format === 'email' ? 'mock@example.com' : s.format === 'uri' ? 'https://example.com/mock' : `${name}-${Math.floor(rnd() * 1000)}`;
      while (str.length < min) str += 'x';
      if (str.length > max) str = str.slice(0, max);
      return str;
    }
  }
}

function resolveRef(root: unknown, ref: string): Schema {
  if (!ref.startsWith('#/')) return {};
  let node: unknown = root;
  for (const part of ref.slice(2).split('/')) node = asSchema(node)[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  return asSchema(node);
}

const withoutRef = (s: Schema): Schema => withoutKey(s, '$ref');

function withoutKey(s: Schema, key: string): Schema {
  const { [key]: _omit, ...rest } = s;
  return rest;
}

function mergeSchemas(a: Schema, b: Schema): Schema {
  const out: Schema = { ...a, ...b };
  if (a.properties || b.properties) out.properties = { ...asSchema(a.properties), ...asSchema(b.properties) };
  if (a.required || b.required) {
    out.required = [...new Set([...((a.required as string[]) ?? []), ...((b.required as string[]) ?? [])])];
  }
  return out;
}
