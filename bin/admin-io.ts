// What every admin CLI command shares: JSON or table output, the store opened for one command, and
// telling running processes what changed under their caches.
import { openConfiguredStore } from "../lib/boot/boot";
import { loadConfig, type Config } from "../lib/boot/config";
import { announceToEveryProcess } from "../lib/engine/cross-process";
import { sqliteFileIn, type Store } from "../lib/store/store";

const output = { json: !process.stdout.isTTY };

/** --json, or stdout not a terminal: JSON lines; else human tables. */
export function printJson(on: boolean): void {
  if (on) output.json = true;
}

export function printsJson(): boolean {
  return output.json;
}

export function print(value: unknown, table?: Record<string, unknown>[]): void {
  if (output.json || !table) {
    console.log(JSON.stringify(value, null, output.json ? undefined : 2));
  } else if (table.length === 0) {
    console.log("(none)");
  } else {
    console.table(table);
  }
}

export async function withStore<T>(fn: (store: Store, config: Config) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const store = await openConfiguredStore(config);
  try {
    return await fn(store, config);
  } finally {
    await store.close();
  }
}

/**
 * Running servers and workers cache keys, sessions and pauses: tell every one of them what changed
 * (a key revoked, a user's access changed, availability) before the command answers.
 */
export async function announce(
  store: Store,
  config: Config,
  message: Parameters<typeof announceToEveryProcess>[2],
): Promise<void> {
  await announceToEveryProcess(store, config.databaseUrl ? null : sqliteFileIn(config.dataDir), message);
}
