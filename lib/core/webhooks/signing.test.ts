import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { newWebhookSecret, signatureHeader } from "./signing";

describe("webhook signing", () => {
  const body = JSON.stringify({
    type: "generation.succeeded",
    timestamp: "2026-11-22T10:00:00.000Z",
    data: { id: "gen_1" },
  });
  const now = Math.floor(Date.now() / 1000);
  const headers = (signature: string) => ({
    "webhook-id": "evt_1",
    "webhook-timestamp": String(now),
    "webhook-signature": signature,
  });

  it("makes whsec_ secrets of 32 random bytes, each different", () => {
    const a = newWebhookSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(a.slice(6), "base64")).toHaveLength(32);
    expect(newWebhookSecret()).not.toBe(a);
  });

  it("signs so that a receiver's standard verification accepts it, and refuses a changed body", () => {
    const secret = newWebhookSecret();
    const signature = signatureHeader([secret], "evt_1", now, body);
    expect(signature).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(new Webhook(secret).verify(body, headers(signature))).toEqual(JSON.parse(body));
    expect(() => new Webhook(secret).verify(body.replace("gen_1", "gen_2"), headers(signature))).toThrow();
    expect(() => new Webhook(newWebhookSecret()).verify(body, headers(signature))).toThrow();
  });

  it("with two secrets sends two signatures, each verifying with its own secret", () => {
    const [current, previous] = [newWebhookSecret(), newWebhookSecret()];
    const signature = signatureHeader([current, previous], "evt_1", now, body);
    const parts = signature.split(" ");
    expect(parts).toHaveLength(2);
    expect(new Webhook(current).verify(body, headers(parts[0]!))).toBeTruthy();
    expect(new Webhook(previous).verify(body, headers(parts[1]!))).toBeTruthy();
    expect(() => new Webhook(current).verify(body, headers(parts[1]!))).toThrow();
  });
});
