// A streamed body: encoded SSE pieces released one network write at a time, with optional delays. Pull-based
// (highWaterMark 0), so nothing is produced ahead of the consumer, and cancelling stops the timers at once.
import type { StreamWrites } from './core/http.ts';
import { toWrites } from './core/sse-encoder.ts';

export function sseBody(pieces: string[], timing: StreamWrites): ReadableStream<Uint8Array> {
  let piece = 0;
  let writes: Uint8Array[] = [];
  let w = 0;
  let cancelled = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let wake: (() => void) | undefined;
  const sleep = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      wake = resolve;
      timer = setTimeout(resolve, ms);
    });
  const opts = { framing: timing.framing };
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (w >= writes.length) {
          if (piece >= pieces.length) {
            controller.close();
            return;
          }
          // A reset connection (a runtime fault): the body fails where the socket would have been cut.
          if (timing.resetAfter !== undefined && piece >= timing.resetAfter) {
            controller.error(new TypeError('the connection was reset (a runtime fault of the mock)'));
            return;
          }
          if (timing.chunkDelayMs > 0) await sleep(timing.chunkDelayMs);
          writes = toWrites(pieces[piece++]!, opts);
          w = 0;
        }
        if (timing.writeDelayMs > 0) await sleep(timing.writeDelayMs);
        if (cancelled) return;
        controller.enqueue(writes[w++]!);
      },
      cancel() {
        cancelled = true;
        if (timer !== undefined) clearTimeout(timer);
        wake?.();
      },
    },
    { highWaterMark: 0 },
  );
}
