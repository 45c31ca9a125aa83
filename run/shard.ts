// One shard of a run (`--shard i/n`, CONFORMANCE_SHARD): Playwright's own sharding splits the suite's tests; each
// shard's report is partial until `chatconform report merge` puts all n of them together.
import { runSetting } from './plan.ts';

export interface Shard {
  /** 1-based, as Playwright counts. */
  index: number;
  total: number;
}

/** "2/3" → { index: 2, total: 3 }; throws a one-line error on anything else. */
export function parseShard(raw: string): Shard {
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(raw);
  const index = Number(m?.[1]);
  const total = Number(m?.[2]);
  if (!m || !Number.isSafeInteger(index) || !Number.isSafeInteger(total) || total < 1 || index < 1 || index > total) {
    throw new Error(`expected a shard as i/n with 1 <= i <= n (e.g. 2/3), got "${raw}"`);
  }
  return { index, total };
}

/** The run's shard (its plan's, else CONFORMANCE_SHARD), or undefined for a whole run. */
export function shardOf(env: NodeJS.ProcessEnv = process.env): Shard | undefined {
  const label = runSetting('shard', env);
  return label === undefined ? undefined : parseShard(label);
}

export function shardLabel(s: Shard): string {
  return `${s.index}/${s.total}`;
}
