// Legal variant of a failure inside an open stream (section 6 rule 10): the near miss of passing it off as complete.
import { variant } from '../mode.ts';
import { replacingErrorEvent } from '../support.ts';

export const STREAM_ERROR_FINISH_CHUNK_VARIANT = variant({
  name: 'stream-error-finish-chunk',
  allows: '6 rule 10 (an error arrives as an event after the stream opened; the stream may end on it)',
  description: 'a failure inside an open stream first closes the choice with a chunk whose finish_reason is "error", then sends its error event and ends there, without [DONE]',
  // A finish chunk that opens the stream carries the role, as a first delta does.
  stages: replacingErrorEvent((error, envelope, first) => [{ ...envelope, choices: [{ index: 0, delta: first ? { role: 'assistant' } : {}, finish_reason: 'error' }] }, { error }]),
});
