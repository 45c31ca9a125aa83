// The input of `chatconform run` checked before anything starts: what would only fail later, inside the run. A bad
// target URL, a selection of unknown IDs, flags that do not fit together, a bad --grep are usage errors (exit 2); a
// profile, baseline or reference profile that does not load is a configuration error (exit 3). `texts` are the
// plan's input (run/plan.ts planInput): the settings' texts, the flags over the variables over the config file.
import { existsSync } from 'node:fs';
import { loadBaseline } from '../report/baseline.ts';
import { ENV, gateOf, normaliseBaseUrl } from '../run/config.ts';
import { headersOfText } from '../run/extra-headers.ts';
import { loadProfile } from '../run/profile.ts';
import { REFERENCE_ENV } from '../run/reference.ts';
import { selectionOf } from '../run/selection.ts';
import { shardOf } from '../run/shard.ts';
import { trialsOf } from '../run/trials.ts';
import { ConfigError, UsageError } from './usage.ts';

export function validate(texts: NodeJS.ProcessEnv, flags: { grep?: string; certify?: boolean }): void {
  const baseUrl = texts[ENV.baseUrl];
  if (baseUrl) {
    let url: URL;
    try {
      url = new URL(baseUrl);
      normaliseBaseUrl(baseUrl);
    } catch (err) {
      throw new UsageError(`--base-url: ${err instanceof TypeError ? `not a URL: ${JSON.stringify(baseUrl.replace(/\/\/[^@/]*@/, '//***@'))}` : (err as Error).message.replace(ENV.baseUrl, 'the base URL')}`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--base-url: expected an http:// or https:// URL, got ${url.protocol}`);
  }
  try {
    selectionOf(texts);
    gateOf(texts);
    trialsOf(texts);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  let sharded = false;
  try {
    sharded = shardOf(texts) !== undefined;
  } catch (err) {
    throw new UsageError(`${ENV.shard}: ${(err as Error).message}`);
  }
  // Every shard must draw the same property cases: a random seed per shard would make the merge refuse them.
  if (sharded && !texts[ENV.seed]) throw new UsageError('--shard: give --seed too (the same for every shard of the run; `chatconform report merge` refuses shards of different seeds)');
  if (sharded && flags.certify) throw new UsageError('--certify judges the whole suite in one run; a shard is a partial run');
  validateReference(texts);
  try {
    headersOfText(texts[ENV.headers]);
  } catch (err) {
    throw new UsageError(`${ENV.headers}: ${(err as Error).message}`);
  }
  if (flags.grep !== undefined) {
    try {
      new RegExp(flags.grep);
    } catch (err) {
      throw new UsageError(`--grep: ${(err as Error).message}`);
    }
  }
  const profile = texts[ENV.profile];
  if (profile) {
    if (!existsSync(profile)) throw new ConfigError(`--profile: ${profile} does not exist`);
    try {
      loadProfile(profile);
    } catch (err) {
      throw new ConfigError(`--profile: ${(err as Error).message.split('\n')[0]}`);
    }
  }
  const baseline = texts[ENV.expectedFailures];
  if (baseline) {
    try {
      loadBaseline(baseline);
    } catch (err) {
      throw new ConfigError(`--expected-failures: ${(err as Error).message}`);
    }
  }
}

/** --reference: an http(s) URL, a profile that loads; --fail-on target-only and the reference's own settings need it. */
function validateReference(texts: NodeJS.ProcessEnv): void {
  const url = texts[REFERENCE_ENV.url];
  if (!url) {
    if (texts[ENV.failOn] === 'target-only') throw new UsageError('--fail-on target-only gates on what the target adds to its reference: give --reference');
    for (const name of [REFERENCE_ENV.profile, REFERENCE_ENV.model]) if (texts[name]) throw new UsageError(`${name} sets the reference run: give --reference too`);
    return;
  }
  try {
    const u = new URL(url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error(`expected an http:// or https:// URL, got ${u.protocol}`);
    normaliseBaseUrl(url);
  } catch (err) {
    throw new UsageError(`--reference: ${err instanceof TypeError ? 'not a URL' : (err as Error).message.replace(ENV.baseUrl, 'the reference URL').replace(ENV.apiKey, REFERENCE_ENV.apiKey)}`);
  }
  const profile = texts[REFERENCE_ENV.profile];
  if (profile) {
    try {
      loadProfile(profile);
    } catch (err) {
      throw new ConfigError(`--reference-profile: ${(err as Error).message.split('\n')[0]}`);
    }
  }
}
