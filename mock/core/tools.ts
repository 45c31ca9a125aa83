// Tool calling: which tools the mock calls, and arguments generated from each tool's parameters JSON Schema.
import { MockHttpError } from './errors.ts';
import { ArgumentBoundError, ArgumentBudget, generateArguments } from '../engine/tool-arguments.ts';
import type { ChatRequest, FunctionTool, RequestMessage, ToolCall } from './request.ts';
import { digest, prng } from '../engine/tokens.ts';

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
// honours: TOOL-011, TOOL-012, TOOL-013, TOOL-014 (tool calls without declared tools: 400 with a section 7 body)
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
// honours: TOOL-002, TOOL-003, TOOL-006, TOOL-016 (a returned call names a declared function; a forced one, that one)
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
  const named = namedIn(text, tools);
  return named.length > 0 ? named : [tools[0]!];
}

function lastIsToolResult(req: ChatRequest): boolean {
  return req.messages[req.messages.length - 1]?.role === 'tool';
}

/** Most names with non-word characters searched for in one message (each search is a pass over the text). */
export const MAX_NAME_SCANS = 16;

const isWordName = (name: string): boolean => /^[A-Za-z0-9_]+$/.test(name);

/**
 * The tools whose names the text mentions. A name of word characters only occurs between word boundaries
 * exactly when it is one of the text's maximal word runs, so one pass over the text serves every such name;
 * other names are searched for one by one, at most MAX_NAME_SCANS of them.
 */
function namedIn(text: string, tools: FunctionTool[]): FunctionTool[] {
  const wordNames = new Set(tools.map((t) => t.function.name).filter(isWordName));
  const found = new Set<string>();
  if (wordNames.size > 0) {
    const runs = /[A-Za-z0-9_]+/g;
    for (let m = runs.exec(text); m !== null && found.size < wordNames.size; m = runs.exec(text)) if (wordNames.has(m[0])) found.add(m[0]);
  }
  let scans = 0;
  return tools.filter((t) => (isWordName(t.function.name) ? found.has(t.function.name) : scans++ < MAX_NAME_SCANS && mentions(text, t.function.name)));
}

const isWordChar = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;

/**
 * Whether `name` occurs in `text` between word boundaries (the meaning of /\bname\b/), found with indexOf: no
 * regular expression is built from request data.
 */
export function mentions(text: string, name: string): boolean {
  if (name === '') return false;
  const boundary = (i: number): boolean => isWordChar(text.charCodeAt(i - 1)) !== isWordChar(text.charCodeAt(i));
  for (let at = text.indexOf(name); at >= 0; at = text.indexOf(name, at + 1)) {
    if (boundary(at) && boundary(at + name.length)) return true;
  }
  return false;
}

/**
 * Tool calls for the chosen tools; ids and arguments derive from the request hash. A parameters schema the
 * generator cannot satisfy within its bounds (engine/tool-arguments.ts) is a 400 naming the tool and the bound,
 * raised here, before any response starts. `padding`: extra text placed once in each call's arguments.
 */
// honours: RESP-015, RESP-016, RESP-017
// honours: RESP-018, RESP-019, RESP-020, TOOL-008, TOOL-015 (arguments: a JSON string of the schema's object; {} without parameters)
export function buildToolCalls(tools: FunctionTool[], seed: string, padding?: string): ToolCall[] {
  // One budget for the whole request: many parallel calls share the step, size and time bounds.
  const budget = new ArgumentBudget();
  return tools.map((t, i) => {
    const id = `call_${digest(`${seed}:${i}:${t.function.name}`)}`;
    const rnd = prng(parseInt(digest(`${seed}:${t.function.name}`).slice(0, 8), 16));
    const params = t.function.parameters;
    let args: unknown = {};
    if (params !== undefined) {
      try {
        args = generateArguments(params, rnd, { budget, ...(padding !== undefined ? { padding } : {}) });
      } catch (err) {
        if (!(err instanceof ArgumentBoundError)) throw err;
        const name = t.function.name.length > 64 ? `${t.function.name.slice(0, 64)}...` : t.function.name;
        throw new MockHttpError(
          400,
          'tool_parameters_unsatisfiable',
          `invalid request: tool "${name}": the mock cannot generate arguments for its parameters schema within its bound "${err.bound}": ${err.message}`,
        );
      }
    }
    return { id, type: 'function', function: { name: t.function.name, arguments: JSON.stringify(args ?? {}) } };
  });
}
