// One shard of a run (`--shard i/n`, CONFORMANCE_SHARD): Playwright's own sharding splits the suite's tests; each
// shard's report is partial until `chatconform report merge` puts all n of them together.
// The table, not run/config.ts: run/settings.ts parses a shard with parseShard, and must stay a leaf module.
import { setting } from './settings.ts';

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

/** The run's shard from CONFORMANCE_SHARD, or undefined for a whole run. */
export function shardOf(env: NodeJS.ProcessEnv = process.env): Shard | undefined {
  const raw = env[setting('shard').env];
  return raw === undefined || raw === '' ? undefined : parseShard(raw);
}

export function shardLabel(s: Shard): string {
  return `${s.index}/${s.total}`;
}
