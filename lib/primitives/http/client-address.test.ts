import { describe, expect, it } from "vitest";
import { plainAddress } from "./client-address";

describe("plainAddress", () => {
  it("shows an IPv4 client of a dual-stack socket as its IPv4 address, and leaves anything else", () => {
    expect(plainAddress("::ffff:127.0.0.1")).toBe("127.0.0.1");
    expect(plainAddress("::FFFF:203.0.113.7")).toBe("203.0.113.7");
    for (const address of ["::1", "127.0.0.1", "2001:db8::1", "::ffff:7f00:1", "::ffff:", "unknown"])
      expect(plainAddress(address)).toBe(address);
  });
});
