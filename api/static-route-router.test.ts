import { TrieRouter } from "hono/router/trie-router";
import { describe, expect, it } from "vitest";
import { StaticRouteRouter } from "./static-route-router";

const ROUTES: [string, string, string][] = [
  ["ALL", "*", "middleware"],
  ["GET", "/v1/models", "list models"],
  ["GET", "/v1/models/:creator/:name", "one model"],
  ["GET", "/v1/webhooks/:id", "one webhook"],
  ["GET", "/v1/webhooks/default/secret", "the secret"],
  ["POST", "/v1/quotes", "quote"],
];

function both(): [StaticRouteRouter<string>, TrieRouter<string>] {
  const ours = new StaticRouteRouter<string>();
  const trie = new TrieRouter<string>();
  for (const [method, path, handler] of ROUTES) {
    ours.add(method, path, handler);
    trie.add(method, path, handler);
  }
  return [ours, trie];
}

describe("StaticRouteRouter", () => {
  it("matches as the TrieRouter does, the first time and every time after", () => {
    const [ours, trie] = both();
    const asks: [string, string][] = [
      ["GET", "/v1/models"],
      ["POST", "/v1/models"],
      ["GET", "/v1/models/atelier/gradient"],
      ["GET", "/v1/webhooks/default/secret"],
      ["GET", "/v1/webhooks/wh_1"],
      ["POST", "/v1/quotes"],
      ["GET", "/v1/nothing"],
    ];
    for (let round = 0; round < 3; round++) {
      for (const [method, path] of asks)
        expect(ours.match(method, path), `${method} ${path}`).toEqual(trie.match(method, path));
    }
  });

  it("remembers only the paths of routes without parameters, whatever is asked", () => {
    const [ours] = both();
    for (let i = 0; i < 1000; i++) {
      ours.match("GET", `/v1/models/a/m${i}`);
      ours.match("GET", `/v1/unknown/${i}`);
    }
    expect(ours.remembered).toBe(0);
    ours.match("GET", "/v1/models");
    ours.match("GET", "/v1/models");
    ours.match("POST", "/v1/quotes");
    expect(ours.remembered).toBe(2);
  });

  it("forgets what it remembered when a route is added", () => {
    const [ours] = both();
    expect(ours.match("GET", "/v1/models")[0]).toHaveLength(2);
    ours.add("GET", "/v1/models", "another");
    expect(ours.remembered).toBe(0);
    expect(ours.match("GET", "/v1/models")[0].map(([handler]) => handler)).toEqual([
      "middleware",
      "list models",
      "another",
    ]);
  });
});
