// One shard of a run (`--shard i/n`, CONFORMANCE_SHARD): Playwright's own sharding splits the suite's tests; each
// shard's report is partial until `chatconform report merge` puts all n of them together. The label's parse is the
// settings table's (run/settings.ts, the `shard` kind).
import { runSetting } from './plan.ts';
import { parseShard, type Shard } from './settings.ts';

export { parseShard, shardLabel, type Shard } from './settings.ts';

/** The run's shard (its plan's, else CONFORMANCE_SHARD), or undefined for a whole run. */
export function shardOf(env: NodeJS.ProcessEnv = process.env): Shard | undefined {
  const label = runSetting('shard', env);
  return label === undefined ? undefined : parseShard(label);
}
