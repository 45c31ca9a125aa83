// Legal variants of the stream's framing (section 6): what an SSE consumer must accept.
import type { Framing } from '../../core/sse-encoder.ts';
import { variant, type VariantMode } from '../mode.ts';
import { eventLines } from '../support.ts';

/** A variant that switches one framing on for every stream. */
const framing = <const N extends Framing>(name: N, allows: string, description: string): VariantMode<N> =>
  variant({
    name,
    allows,
    description,
    stages: () => ({
      framing: (next) => (input) => {
        const f = next(input);
        return { ...f, framing: new Set([...(f.framing ?? []), name]) };
      },
    }),
  });

export const FRAMING_VARIANTS = [
  framing('crlf', '6 rule 3', 'every stream line ends with CRLF'),
  framing('multiline', '6 rule 2', 'each event spreads its JSON over several data: lines'),
  framing('bytewise', '6 rule 7', 'streams go out one byte per network write, so UTF-8 characters are split across writes'),
  framing('no-final-blank', '6 rule 5', 'the final event ([DONE]) lacks its terminating blank line'),
  framing('comments', '6 (SSE comment lines)', '": keep-alive" comment lines before every event'),
  framing('no-space', '6 rule 1', 'data: lines without the optional space after the colon'),
] as const;

export const SSE_FIELDS_VARIANT = variant({
  name: 'sse-fields',
  allows: '6 (standard SSE fields; message is the default event type)',
  description: 'every stream event also carries "event: message", "id: <n>" and "retry: 3000" lines; standard consumers see the same data',
  stages: () => eventLines({ sseFields: true }),
});
