// Legal variant: tool calls long enough that a cap cuts them (2.4, 4.3 rule 2), as a real model's would be.
import { capWithinWindow, requestSeedDigest, toolCallTokens } from '../../core/chat.ts';
import { buildToolCalls, chooseTools } from '../../core/tools.ts';
import { variant } from '../mode.ts';
import { cutToolCalls } from '../support.ts';

/** Text added to the arguments so that one complete call needs more than 64 tokens. */
export const LONG_ARGUMENT_PADDING = ` (${Array.from({ length: 5 }, () => 'the mock pads this argument so that one complete call needs more than sixty-four tokens').join(' ')})`;

export const LONG_TOOL_ARGUMENTS_VARIANT = variant({
  name: 'long-tool-arguments',
  allows: '2.4 (arguments is a JSON string) and 4.3 rule 2 (the cap bounds generated tokens)',
  description:
    'tool-call arguments are padded (an extra string property where the schema allows, else the first free string) so one call needs more than 64 tokens; a cap below that cuts the call (finish_reason length)',
  stages: () => ({
    complete: (next) => (input) => {
      const c = next(input);
      if (c.toolCalls.length === 0) return c;
      const before = c.tokens.completion - toolCallTokens(c.toolCalls);
      let calls = buildToolCalls(chooseTools(input.req), requestSeedDigest(input.req), LONG_ARGUMENT_PADDING);
      // The cap cuts a call as it cuts text (the clean mock never cuts a call); the context window is a cap too.
      const cap = capWithinWindow(input.cap, input.entry, c.tokens.prompt);
      if (cap !== undefined) {
        const cut = cutToolCalls(calls, Math.max(0, cap - before));
        if (cut !== undefined) {
          calls = cut;
          c.finishReason = 'length';
          if (cut.length === 0) c.content = '';
        }
      }
      c.toolCalls = calls;
      c.tokens.completion = before + toolCallTokens(calls);
      return c;
    },
  }),
});
