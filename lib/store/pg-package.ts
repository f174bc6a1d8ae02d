// pg is loaded when a process first talks to PostgreSQL, not with the module graph: a SQLite
// process (every SQLite server and worker, each admin CLI call) never needs it, and loading it
// also loads Node's fetch (pg's Cloudflare check reads `navigator`), a part of each admin CLI
// call's start. `require` keeps the call sites synchronous and names the package literally for bundlers.
/* eslint-disable @typescript-eslint/no-require-imports */
import type PgPackage from "pg";

let pg: typeof PgPackage | undefined;

/** The `pg` package, loaded on first use. */
export function pgPackage(): typeof PgPackage {
  return (pg ??= require("pg") as typeof PgPackage);
}
