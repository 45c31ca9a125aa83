// The mock's parse thread (parse-thread.ts): takes chat bodies one at a time and answers each with what the
// contract's parse made of it, accepted (with the request's seeds, the hash of the whole request, which the serving
// thread then need not compute, and where its largest array's items sit, so that it can decode them a slice at a
// time) or refused, off the thread that serves requests.
import { parentPort } from 'node:worker_threads';
import { MockHttpError } from '../core/errors.ts';
import { seedsOf } from '../core/chat.ts';
import { bodyText, parseChatRequest } from '../core/request.ts';
import { DECODE_SLICE_CHARS } from '../engine/checked-bodies.ts';
import { arrayItemRuns } from '../engine/json-spans.ts';
import type { ParseAnswer, ParseJob } from './parse-thread.ts';

parentPort!.on('message', (job: ParseJob) => {
  let answer: ParseAnswer;
  try {
    const req = parseChatRequest(job.bytes);
    const runs = arrayItemRuns(bodyText(job.bytes), DECODE_SLICE_CHARS);
    answer = { id: job.id, verdict: { accepted: true, seeds: seedsOf(req), ...(runs ? { runs } : {}) } };
  } catch (err) {
    // Only the contract's own refusals are verdicts; anything else is left to the serving thread.
    answer = err instanceof MockHttpError ? { id: job.id, verdict: { accepted: false, status: err.status, code: err.code, message: err.message } } : { id: job.id };
  }
  parentPort!.postMessage(answer);
});
