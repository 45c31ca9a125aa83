// The mock's parse thread (parse-thread.ts): takes chat bodies one at a time and answers each with what the
// contract's parse made of it, accepted (with the request's seeds, the hash of the whole request, which the serving
// thread then need not compute) or refused, off the thread that serves requests.
import { parentPort } from 'node:worker_threads';
import { MockHttpError } from '../core/errors.ts';
import { seedsOf } from '../core/chat.ts';
import { parseChatRequest } from '../core/request.ts';
import type { ParseAnswer, ParseJob } from './parse-thread.ts';

parentPort!.on('message', (job: ParseJob) => {
  let answer: ParseAnswer;
  try {
    const req = parseChatRequest(job.bytes);
    answer = { id: job.id, verdict: { accepted: true, seeds: seedsOf(req) } };
  } catch (err) {
    // Only the contract's own refusals are verdicts; anything else is left to the serving thread.
    answer = err instanceof MockHttpError ? { id: job.id, verdict: { accepted: false, status: err.status, code: err.code, message: err.message } } : { id: job.id };
  }
  parentPort!.postMessage(answer);
});
