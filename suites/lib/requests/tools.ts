// Tool calling (2.2, 2.3, 2.4, 4.3 rule 3): the function tools the suite declares, and reading the tool
// calls out of a target's completion without trusting its shape. Judging stays in the spec file.
import { contentText } from '../../../judge/content-text.ts';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A function tool with a parameters JSON Schema and a description (2.3). */
export const WEATHER_TOOL = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Current weather for a city.',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string', description: 'City name, e.g. Paris' } },
      required: ['city'],
      additionalProperties: false,
    },
  },
} as const;

/** A second function tool, so a call can be told apart from "the only tool there is". */
export const TIME_TOOL = {
  type: 'function',
  function: {
    name: 'get_local_time',
    description: 'Current local time in an IANA time zone.',
    parameters: {
      type: 'object',
      properties: { timezone: { type: 'string', description: 'IANA time-zone name, e.g. Europe/Paris' } },
      required: ['timezone'],
    },
  },
} as const;

/**
 * A tool whose call is short whatever the model: its arguments are one required choice from an enum and an
 * optional boolean, a handful of tokens, so a server with a small output cap still returns a whole call to judge.
 */
export const UNITS_TOOL = {
  type: 'function',
  function: {
    name: 'set_temperature_unit',
    description: 'Sets the unit temperatures are reported in.',
    parameters: {
      type: 'object',
      properties: { unit: { type: 'string', enum: ['celsius', 'fahrenheit'] }, remember: { type: 'boolean' } },
      required: ['unit'],
      additionalProperties: false,
    },
  },
} as const;

export const UNITS_PROMPT = 'Report temperatures in celsius from now on: call set_temperature_unit.';

/** Asks for two functions at once: parallel tool calls, several in one answer (2.9 tool_calls is an array). */
export const PARALLEL_PROMPT = 'Call get_weather for Paris and get_local_time for Europe/Paris, both in this one answer, in parallel.';

/** Why the tool-call rules are not judged on an answer that returned no call. */
export const NO_CALL_CAME_BACK = 'no tool call came back, so there is no returned call whose id, type, name and arguments to judge';

/** The requirements a returned tool call is judged under (2.4), by the registered checks. */
export const RETURNED_CALL_IDS = ['RESP-015', 'RESP-017', 'RESP-018', 'RESP-019', 'RESP-020'] as const;

/** A function tool with neither description nor parameters: the kit omits both when empty (2.3). */
export const BARE_TOOL = { type: 'function', function: { name: 'ping_service' } } as const;

export const WEATHER_PROMPT = 'What is the weather in Paris right now? Use the get_weather tool.';

export interface ReturnedCall {
  /** Position in message.tool_calls. */
  position: number;
  id: unknown;
  type: unknown;
  name: unknown;
  arguments: unknown;
}

/** The tool calls of choice 0's message, as the target sent them (each field unchecked). */
export function returnedCalls(body: Json | undefined): ReturnedCall[] {
  const choices = Array.isArray(body?.choices) ? body.choices : [];
  const first = choices.find(isObject);
  const message = first && isObject(first.message) ? first.message : undefined;
  const calls = Array.isArray(message?.tool_calls) ? message.tool_calls : [];
  return calls.map((c, position) => {
    const call = isObject(c) ? c : {};
    const fn = isObject(call.function) ? call.function : {};
    return { position, id: call.id, type: call.type, name: fn.name, arguments: fn.arguments };
  });
}

/** The text content of choice 0's message (a string, or its text parts), when it is not empty. */
export function returnedText(body: Json | undefined): string | undefined {
  const choices = Array.isArray(body?.choices) ? body.choices : [];
  const first = choices.find(isObject);
  const message = first && isObject(first.message) ? first.message : undefined;
  const text = contentText(message?.content);
  return text !== undefined && text !== '' ? text : undefined;
}

/** Tool calls fit to send back in a request (2.4): only well-formed calls, only the request fields. */
export function callsToSendBack(calls: ReturnedCall[]): { id: string; type: 'function'; function: { name: string; arguments: string } }[] {
  return calls
    .filter((c) => typeof c.id === 'string' && c.id !== '' && typeof c.name === 'string' && typeof c.arguments === 'string')
    .map((c) => ({ id: c.id as string, type: 'function' as const, function: { name: c.name as string, arguments: c.arguments as string } }));
}

/** A tool call the suite writes itself, for a conversation that does not depend on the model's choice. */
export function fabricatedCall(id = 'call_chatconform_1'): { id: string; type: 'function'; function: { name: string; arguments: string } } {
  return { id, type: 'function', function: { name: WEATHER_TOOL.function.name, arguments: JSON.stringify({ city: 'Paris' }) } };
}

/** Words in an error that report an upstream failure rather than the caller's mistake. */
const UPSTREAM_CODE = /upstream|provider|gateway|backend/i;
const UPSTREAM_MESSAGE = /upstream (?:error|failure|failed|returned|provider|service)|bad gateway|(?:provider|backend) (?:returned|error|failed|failure)|error from (?:the )?(?:upstream|provider|backend)/i;

/** Why an error object reads as an upstream failure, or undefined when it does not. */
export function blamesUpstream(error: Json | undefined): string | undefined {
  if (!error) return undefined;
  for (const field of ['code', 'type'] as const) {
    const v = error[field];
    if (typeof v === 'string' && UPSTREAM_CODE.test(v)) return `error.${field} ${JSON.stringify(v)}`;
  }
  const m = error.message;
  if (typeof m === 'string' && UPSTREAM_MESSAGE.test(m)) return `error.message ${JSON.stringify(m)}`;
  return undefined;
}
