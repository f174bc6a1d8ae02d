import { describe, expect, it } from "vitest";
import { publicBaseUrlWarning } from "./boot";

describe("the PUBLIC_BASE_URL start warning", () => {
  const base = "http://localhost:3000";
  it("warns when unset and listening beyond this machine", () => {
    expect(publicBaseUrlWarning({ env: {}, boundAddress: "::", publicBaseUrl: base })).toMatch(
      /PUBLIC_BASE_URL is unset.*every network interface.*http:\/\/localhost:3000/,
    );
    expect(publicBaseUrlWarning({ env: {}, boundAddress: "192.168.1.20", publicBaseUrl: base })).toMatch(
      /listens on 192\.168\.1\.20/,
    );
  });
  it("is quiet when set, or when only this machine can reach the server", () => {
    expect(
      publicBaseUrlWarning({
        env: { PUBLIC_BASE_URL: "https://a.example" },
        boundAddress: "::",
        publicBaseUrl: "https://a.example",
      }),
    ).toBeNull();
    for (const address of ["127.0.0.1", "::1", "localhost", "::ffff:127.0.0.1"])
      expect(publicBaseUrlWarning({ env: {}, boundAddress: address, publicBaseUrl: base })).toBeNull();
  });
});
