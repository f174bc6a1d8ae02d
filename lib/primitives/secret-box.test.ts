import { describe, expect, it } from "vitest";
import { openSecret, sealSecret, SecretBoxError } from "./secret-box";

const KEY = "k".repeat(40);

describe("secret box", () => {
  it("opens what it sealed, with a fresh IV each time", () => {
    const a = sealSecret(KEY, "provider:acme", "sk-live-123");
    const b = sealSecret(KEY, "provider:acme", "sk-live-123");
    expect(a).not.toBe(b);
    expect(a.startsWith("v1.")).toBe(true);
    expect(a).not.toContain("sk-live");
    expect(openSecret(KEY, "provider:acme", a)).toBe("sk-live-123");
  });

  it("refuses another key, another purpose and a damaged value", () => {
    const sealed = sealSecret(KEY, "provider:acme", "sk-live-123");
    expect(() => openSecret("x".repeat(40), "provider:acme", sealed)).toThrow(SecretBoxError);
    expect(() => openSecret(KEY, "provider:other", sealed)).toThrow(SecretBoxError);
    const [v, iv, body, tag] = sealed.split(".");
    const flipped = (body![0] === "A" ? "B" : "A") + body!.slice(1);
    expect(() => openSecret(KEY, "provider:acme", [v, iv, flipped, tag].join("."))).toThrow(SecretBoxError);
    expect(() => openSecret(KEY, "provider:acme", "v2.a.b.c")).toThrow(/known format/);
  });
});
