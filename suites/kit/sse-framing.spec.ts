// Property: the reference SSE consumer (section 6) against generated streams. No target is needed: these
// properties judge the kit's own consumer (STREAM-006/008/011/014 are requirements on it), which every streamed
// check of the suite decodes through.
import { req, test } from '../lib/test-fixtures.ts';
import { CONSUMER_IDS, describeEncoderCase, describeFramingCase, encoderCase, encoderLaw, framingCase, framingLaw, type Decode } from '../lib/properties/arb/sse.ts';
import { checkProperty } from '../lib/properties/runner.ts';
import { decodeSse } from '../../judge/decoding/sse.ts';

/** What a finding on the kit's own code judged: synthetic input, no exchange of the run. */
const SYNTHETIC = null;

/** The consumer under test: judge/decoding/sse.ts, as every streamed check uses it. */
const decode: Decode = (chunks) => decodeSse(chunks).map((e) => e.data);

/** Offline cases are cheap: eight times the run count of a property that sends requests. */
const OFFLINE_FACTOR = 8;

test.describe('property: the reference SSE consumer', () => {
  test(
    'any events, framed LF, CRLF or mixed, with or without the final blank line, cut anywhere: the consumer yields exactly the payloads',
    req(...CONSUMER_IDS),
    async ({ check, target, config }) => {
      await checkProperty(
        { check, target, config },
        {
          law: 'the consumer yields exactly the generated payloads, whatever the line endings, the final blank line and the network cuts',
          arbitrary: framingCase,
          offline: true,
          runs: config.fuzzRuns * OFFLINE_FACTOR,
          describe: describeFramingCase,
          run: (c, cc) => {
            for (const v of framingLaw(c, decode)) cc.that(v.id, v.ok, v.message, SYNTHETIC);
          },
        },
      );
    },
  );

  test("the mock's own encoder, with any of its framing variants and any network cuts, round-trips through the consumer", req(...CONSUMER_IDS), async ({ check, target, config }) => {
    await checkProperty(
      { check, target, config },
      {
        law: "every payload the mock's encoder framed decodes to the same JSON chunk ([DONE] as is), in order",
        arbitrary: encoderCase,
        offline: true,
        runs: config.fuzzRuns * OFFLINE_FACTOR,
        describe: describeEncoderCase,
        run: (c, cc) => {
          for (const v of encoderLaw(c, decode)) cc.that(v.id, v.ok, v.message, SYNTHETIC);
        },
      },
    );
  });
});
