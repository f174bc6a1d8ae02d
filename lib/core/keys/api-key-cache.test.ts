import { describe, expect, it } from "vitest";
import { createApiKeyCache } from "./api-key-cache";

const entry = (keyId: string, createdBy: string | null = null) => ({
  keyId,
  workspaceId: "ws_1",
  scopes: [],
  role: null,
  createdBy,
  expiresAt: null,
});

describe("the API key cache", () => {
  it("answers within its time to live, forgets one key by ID or every key, and keeps at most maxEntries", () => {
    const cache = createApiKeyCache({ maxEntries: 2, ttlMs: 1_000 });
    cache.set("h1", entry("key_1"), 0);
    cache.set("h1b", entry("key_1"), 0);
    expect(cache.get("h1", 1_000)?.keyId).toBe("key_1");
    expect(cache.get("h1", 1_001)).toBeUndefined();
    cache.set("h1", entry("key_1"), 2_000);
    cache.set("h2", entry("key_2"), 2_000);
    // Past the cap the oldest went (h1b).
    expect(cache.size).toBe(2);
    expect(cache.get("h1b", 2_000)).toBeUndefined();
    cache.forget("key_1");
    expect(cache.get("h1", 2_000)).toBeUndefined();
    expect(cache.get("h2", 2_000)?.keyId).toBe("key_2");
    cache.forget("*");
    expect(cache.size).toBe(0);
  });

  it("forgets the keys one member made when their access changes, and no one else's", () => {
    const cache = createApiKeyCache();
    cache.set("a", entry("key_a", "usr_a"), 0);
    cache.set("b", entry("key_b", "usr_b"), 0);
    cache.set("c", entry("key_c"), 0);
    cache.forgetMaker("usr_a");
    expect(cache.get("a", 1)).toBeUndefined();
    expect(cache.get("b", 1)?.keyId).toBe("key_b");
    expect(cache.get("c", 1)?.keyId).toBe("key_c");
  });
});
