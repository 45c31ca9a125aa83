// The SSE framing property with a fixed seed, and its power: consumers that each lack one of the fixes of
// judge/decoding/sse.ts (or frame lines naively) are caught by the same property, shrunk to a case that shows the
// fault. A property that cannot catch these would pass a broken consumer.
import { createParser } from 'eventsource-parser';
import fc from 'fast-check';
import { testSeed } from '../support/seed.ts';
import { expect, test } from '@playwright/test';
import {
  describeEncoderCase,
  describeFramingCase,
  encoderCase,
  encoderLaw,
  framingCase,
  framingFeatures,
  framingLaw,
  type Decode,
  type FramingCase,
  type FramingFeatures,
} from '../../suites/lib/properties/arb/sse.ts';
import { decodeSse } from '../../judge/decoding/sse.ts';

const SEED = testSeed(424242, 'sse-properties');
const RUNS = 300;

const reference: Decode = (chunks) => decodeSse(chunks).map((e) => e.data);

const framingHolds = (decode: Decode) => fc.property(framingCase, (c) => framingLaw(c, decode).every((v) => v.ok));

test('the reference consumer satisfies the framing property', () => {
  fc.assert(framingHolds(reference), { seed: SEED, numRuns: RUNS });
});

test("the mock's encoder round-trips through the reference consumer", () => {
  fc.assert(
    fc.property(encoderCase, (c) => encoderLaw(c, reference).every((v) => v.ok)),
    { seed: SEED, numRuns: RUNS },
  );
});

test('the generators exercise every feature the law is charged to', () => {
  const seen = new Set<keyof FramingFeatures>();
  for (const c of fc.sample(framingCase, { seed: SEED, numRuns: 100 })) {
    const f = framingFeatures(c);
    for (const k of Object.keys(f) as (keyof FramingFeatures)[]) if (f[k]) seen.add(k);
  }
  expect([...seen].sort()).toEqual(['crlf', 'multiLine', 'noFinalBlank', 'splitCharacter', 'splitCrLf']);
});

// ---------------------------------------------------------------------------------------------------------
// Broken consumers: eventsource-parser wrapped without one of the fixes of judge/decoding/sse.ts, or hand-rolled
// line framing with a classic mistake.

function wrapParser(opts: { flushAtEnd: boolean; incrementalUtf8: boolean }): Decode {
  return (chunks) => {
    const out: string[] = [];
    const parser = createParser({ onEvent: (e) => out.push(e.data) });
    const streaming = new TextDecoder();
    for (const chunk of chunks) parser.feed(opts.incrementalUtf8 ? streaming.decode(chunk, { stream: true }) : new TextDecoder().decode(chunk));
    if (opts.incrementalUtf8) parser.feed(streaming.decode());
    if (opts.flushAtEnd) parser.feed('\n\n');
    return out;
  };
}

/** A hand-rolled consumer: buffers partial lines, but `splitLine` decides what a line ending is and `join` joins data lines. */
function handRolled(splitLine: RegExp, join = '\n'): Decode {
  return (chunks) => {
    const out: string[] = [];
    let data: string[] = [];
    const line = (l: string) => {
      if (l === '') {
        if (data.length) out.push(data.join(join));
        data = [];
      } else if (l.startsWith('data:')) data.push(l.slice(5).replace(/^ /, ''));
    };
    let buffer = '';
    const text = new TextDecoder();
    for (const chunk of chunks) {
      buffer += text.decode(chunk, { stream: true });
      const lines = buffer.split(splitLine);
      buffer = lines.pop()!;
      lines.forEach(line);
    }
    buffer += text.decode();
    for (const l of [...buffer.split(splitLine), '']) line(l);
    return out;
  };
}

const BROKEN: { name: string; decode: Decode; shows?: keyof FramingFeatures }[] = [
  { name: 'drops a final event that lacks its blank line (no flush at end of body)', decode: wrapParser({ flushAtEnd: false, incrementalUtf8: true }), shows: 'noFinalBlank' },
  { name: 'decodes each network chunk on its own (no incremental UTF-8)', decode: wrapParser({ flushAtEnd: true, incrementalUtf8: false }), shows: 'splitCharacter' },
  { name: 'splits lines on LF only (the CR of CRLF stays in the data)', decode: handRolled(/\n/), shows: 'crlf' },
  { name: 'splits lines on CR only', decode: handRolled(/\r/) },
  { name: 'joins several data: lines without the newline', decode: handRolled(/\r\n|\n/, ''), shows: 'multiLine' },
];

for (const broken of BROKEN) {
  test(`the framing property catches a consumer that ${broken.name}`, () => {
    const details = fc.check(framingHolds(broken.decode), { seed: SEED, numRuns: RUNS });
    expect(details.failed, 'the property fails for the broken consumer').toBe(true);
    const c = details.counterexample![0] as FramingCase;
    console.log(`${broken.name}: falsified after ${details.numRuns} run(s), shrunk ${details.numShrinks} time(s):\n    ${describeFramingCase(c)}`);
    if (broken.shows) expect(framingFeatures(c)[broken.shows], `the minimal case shows the fault (${broken.shows})`).toBe(true);
    // The verdicts of the minimal case are charged to the requirement its features exercise.
    expect(framingLaw(c, broken.decode).some((v) => !v.ok)).toBe(true);
  });
}

test("the mock-encoder property catches a consumer that drops the final event when the mock omits its blank line", () => {
  const decode = wrapParser({ flushAtEnd: false, incrementalUtf8: true });
  const details = fc.check(
    fc.property(encoderCase, (c) => encoderLaw(c, decode).every((v) => v.ok)),
    { seed: SEED, numRuns: RUNS },
  );
  expect(details.failed).toBe(true);
  const c = details.counterexample![0];
  console.log(`mock encoder, no flush: ${describeEncoderCase(c)}`);
  expect(c.framing).toContain('no-final-blank');
});
