// Defect modes: streaming (6). Each breaks the requirement it names, as real servers do.
import type { SsePayload } from '../../core/sse-encoder.ts';
import { defect } from '../mode.ts';
import { choicesOf, eventLines, hasProvenance, hasReasoningDelta, hasToolCallDelta, replacingErrorEvent } from '../support.ts';

export const STREAMING_DEFECTS = [
  defect({
    name: 'stream-no-done',
    breaks: 'STREAM-004',
    section: 'streaming',
    description: 'a stream that ends with tool calls stops after the last chunk without data: [DONE] (the tool-call path returns early)',
    output: {
      // The tool-call path returns before the sentinel is written.
      events: (events, { chunks }) => (chunks.some(hasToolCallDelta) ? events.filter((e) => e !== '[DONE]') : events),
    },
  }),
  defect({
    name: 'stream-events-after-done',
    breaks: 'STREAM-004',
    section: 'streaming',
    description: 'search provenance comes back late: in a streamed search answer, the chunk carrying it is sent after data: [DONE], then [DONE] again',
    output: {
      // Search provenance comes back late from the search backend: flushed after the sentinel, then [DONE] again.
      events: (events, { chunks }) => {
        if (!chunks.some(hasProvenance)) return events;
        const late = events.filter(hasProvenance);
        return [...events.filter((e) => e !== '[DONE]' && !hasProvenance(e)), '[DONE]', ...late, '[DONE]'];
      },
    },
  }),
  defect({
    name: 'stream-named-events',
    breaks: 'STREAM-002',
    section: 'streaming',
    description: 'reasoning deltas go out as named events ("event: reasoning" before their data: line)',
    stages: () => eventLines({ eventNameOf: (p: SsePayload) => (hasReasoningDelta(p) ? 'reasoning' : undefined) }),
  }),
  defect({
    name: 'stream-usage-missing',
    breaks: 'STREAM-016',
    section: 'streaming',
    description: 'the hosted-search pipeline drops stream_options: a streamed search answer carries no usage although include_usage was true',
    output: {
      chunks: (chunks, { completion }) => (completion.actions.length > 0 ? chunks.filter((c) => !('usage' in c)) : chunks),
    },
  }),
  defect({
    name: 'stream-finish-reason-null',
    breaks: 'RESP-001',
    section: 'streaming',
    description: 'in a stream of tool calls every chunk before the last carries "finish_reason": null, as many OpenAI-compatible servers send it',
    output: {
      chunks: (chunks, { completion }) => {
        if (completion.toolCalls.length === 0) return chunks;
        for (const chunk of chunks) for (const choice of choicesOf(chunk)) if (!('finish_reason' in choice)) choice.finish_reason = null;
        return chunks;
      },
    },
  }),
  defect({
    name: 'stream-text-legacy-field',
    tier: 'extended',
    breaks: 'STREAM-012',
    section: 'streaming',
    description: 'streamed text goes out as choices[].text, the legacy completions field, with a delta that lacks content (a bridge over a /v1/completions backend)',
    output: {
      chunks: (chunks) => {
        for (const chunk of chunks) {
          for (const choice of choicesOf(chunk)) {
            const delta = choice.delta as Record<string, unknown> | undefined;
            if (typeof delta?.content !== 'string') continue;
            choice.text = delta.content;
            delete delta.content;
          }
        }
        return chunks;
      },
    },
  }),
  defect({
    name: 'stream-no-blank-line',
    tier: 'extended',
    breaks: 'STREAM-009',
    section: 'streaming',
    description: 'events are separated by a single newline, not by a blank line',
    stages: () => eventLines({ noBlankLine: true }),
  }),
  defect({
    name: 'stream-wrong-content-type',
    tier: 'extended',
    breaks: 'CHAT-005',
    section: 'streaming',
    description: 'the event stream is served as "application/json"',
    stages: () => ({
      streamResult: (next) => (input) => {
        const r = next(input);
        return { ...r, headers: { ...r.headers, 'content-type': 'application/json' } };
      },
    }),
  }),
  defect({
    name: 'stream-usage-after-done',
    tier: 'extended',
    breaks: 'STREAM-016',
    section: 'streaming',
    description: 'with include_usage true, the usage chunk is written after data: [DONE] (an aggregator that flushes its counters when the upstream ends), where a client that stops at the sentinel never reads it',
    output: {
      events: (events) => {
        const carriesUsage = (e: SsePayload): boolean => typeof e === 'object' && e !== null && 'usage' in e;
        if (!events.some(carriesUsage)) return events;
        return [...events.filter((e) => !carriesUsage(e)), ...events.filter(carriesUsage)];
      },
    },
  }),
  defect({
    name: 'chunk-ids-differ',
    tier: 'extended',
    breaks: 'RESP-002',
    section: 'streaming',
    description: 'every chunk of a stream carries an id of its own (a relay that stamps each upstream event as it forwards it), so the chunks name no one completion',
    output: {
      chunks: (chunks) => chunks.map((c, i) => (i === 0 ? c : { ...c, id: `${String(c.id)}-${i}` })),
    },
  }),
  defect({
    name: 'chunk-created-milliseconds',
    tier: 'extended',
    breaks: 'RESP-005',
    section: 'streaming',
    description: 'the chunks after the first carry "created" in milliseconds (each stamped with Date.now() as it is written); the first chunk, which an assembled answer keeps, is right',
    output: {
      chunks: (chunks) => chunks.map((c, i) => (i === 0 || typeof c.created !== 'number' ? c : { ...c, created: c.created * 1000 + i })),
    },
  }),
  defect({
    name: 'stream-error-as-done',
    tier: 'extended',
    breaks: 'STREAM-020',
    section: 'streaming',
    description: 'a generation that fails after the stream opened ends with data: [DONE] instead of its error event: the truncated answer reads as complete',
    cooperation: 'a failure inside an open stream, which only the scenario headers provoke (profile.scenarioHeaders)',
    stages: replacingErrorEvent(() => ['[DONE]']),
  }),
  defect({
    name: 'stream-error-as-text',
    tier: 'extended',
    breaks: 'STREAM-020',
    section: 'streaming',
    description: 'a generation that fails after the stream opened appends the error\'s message to the answer as text, with finish_reason "stop", then [DONE] (a proxy that turns every upstream event into content)',
    cooperation: 'a failure inside an open stream, which only the scenario headers provoke (profile.scenarioHeaders)',
    stages: replacingErrorEvent((error, envelope) => [{ ...envelope, choices: [{ index: 0, delta: { content: ` [error: ${String(error.message)}]` }, finish_reason: 'stop' }] }, '[DONE]']),
  }),
] as const;
