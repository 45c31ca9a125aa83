// The protocol between `chatconform client` and the client under test (docs/client-conformance.md, "Protocol"):
// one process per scenario, the instruction in environment variables, one JSON object on stdout. Kept this small
// on purpose: a client author writes the adapter in 30 lines of any language, with the SDK they ship.
import type { ConsumerReport } from '../judge/checks/consumer.ts';

/** What the client is asked to do. */
export type InstructionKind = 'chat' | 'stream' | 'tool-loop' | 'search' | 'catalog';

export interface Instruction {
  kind: InstructionKind;
  /** The model to use; absent when `needs` asks the client to choose one from the live catalog. */
  model?: string;
  /** Capability flags of the catalog entry to choose (each true), when no `model` is given (section 9). */
  needs?: string[];
  /** The conversation to send (section 2.2); absent for `catalog`. */
  messages?: unknown[];
  /** Tools to declare (`tool-loop`). */
  tools?: unknown[];
  /** `tool-loop`: the content of the tool result to send back for every call. */
  tool_result?: string;
  /** `tool-loop`: stream both completions (the calls assembled from their deltas). */
  stream?: boolean;
  /** `stream`: send these stream_options (`include_usage`), and report the usage the stream gave. */
  stream_options?: { include_usage?: boolean };
  /** `search`: search with these web_search_options, then send the answer back with this user message. */
  web_search_options?: Record<string, unknown>;
  follow_up?: string;
}

/** What the client prints: one JSON object; every field optional, `error` when the request failed. */
export type ClientReport = ConsumerReport;

/** The environment variables a client gets (besides the parent's PATH, HOME and the like). */
export const CLIENT_ENV = {
  baseUrl: 'OPENAI_BASE_URL',
  apiKey: 'OPENAI_API_KEY',
  instruction: 'CHATCONFORM_INSTRUCTION',
  model: 'CHATCONFORM_MODEL',
  scenario: 'CHATCONFORM_SCENARIO',
} as const;

/** The client's stdout read as its report, or why it is not one. */
export function parseReport(stdout: string): { report: ClientReport } | { problem: string } {
  const text = stdout.trim();
  if (text === '') return { problem: 'the client printed nothing on stdout' };
  // One JSON object; a client that logs before it may still end with its report on the last line.
  const candidates = [text, text.split('\n').filter((l) => l.trim() !== '').at(-1)!.trim()];
  for (const candidate of candidates) {
    try {
      const value: unknown = JSON.parse(candidate);
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) return { report: value as ClientReport };
    } catch {
      // try the next reading
    }
  }
  return { problem: `the client's stdout is not one JSON object: ${JSON.stringify(text.slice(0, 120))}${text.length > 120 ? '...' : ''}` };
}
