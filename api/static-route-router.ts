// Hono's TrieRouter, remembering its match for the paths of routes without parameters (/v1/models,
// /v1/quotes...). Hono's fastest router, RegExpRouter, refuses this API's route table
// (/v1/webhooks/default/secret beside /v1/webhooks/:id), so SmartRouter falls back to the
// TrieRouter, which would search on every request. Only a registered static path is kept, so the
// memory is bounded by the route table whatever paths are asked.
import type { Result, Router } from "hono/router";
import { TrieRouter } from "hono/router/trie-router";

const HAS_PARAMETER = /[:*{]/;

export class StaticRouteRouter<T> implements Router<T> {
  name = "StaticRouteRouter(TrieRouter)";
  readonly #trie = new TrieRouter<T>();
  readonly #staticPaths = new Set<string>();
  /** Method → path → the trie's match; a match is only read by Hono, never changed. */
  readonly #matches = new Map<string, Map<string, Result<T>>>();

  add(method: string, path: string, handler: T): void {
    this.#trie.add(method, path, handler);
    if (!HAS_PARAMETER.test(path)) this.#staticPaths.add(path);
    this.#matches.clear();
  }

  match(method: string, path: string): Result<T> {
    const byPath = this.#matches.get(method);
    const known = byPath?.get(path);
    if (known) return known;
    const result = this.#trie.match(method, path);
    if (this.#staticPaths.has(path)) {
      if (byPath) byPath.set(path, result);
      else this.#matches.set(method, new Map([[path, result]]));
    }
    return result;
  }

  /** How many matches are kept (for tests). */
  get remembered(): number {
    let count = 0;
    for (const byPath of this.#matches.values()) count += byPath.size;
    return count;
  }
}
