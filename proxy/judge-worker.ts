// The proxy's judging thread (judging.ts): takes finished exchanges one at a time and answers each with its
// judgement, off the thread that forwards bytes.
import { parentPort, workerData } from 'node:worker_threads';
import { LocalJudge, type JudgeAnswer, type JudgeJob, type JudgeSetup } from './judging.ts';

const judge = new LocalJudge(workerData as JudgeSetup);

/** A Buffer the message carried arrives as a plain Uint8Array: the checks want Buffers. */
const asBuffer = (bytes: Uint8Array): Buffer => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

parentPort!.on('message', (job: JudgeJob) => {
  let answer: JudgeAnswer;
  try {
    const x = { ...job.x, requestBody: asBuffer(job.x.requestBody), responseBody: asBuffer(job.x.responseBody) };
    answer = { id: job.id, judged: judge.judge(x, job.secrets) };
  } catch (err) {
    answer = { id: job.id, error: (err as Error).message };
  }
  parentPort!.postMessage(answer);
});
