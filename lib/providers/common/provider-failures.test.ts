import { describe, expect, it } from "vitest";
import { createHealth } from "./health";
import { ProviderFailures } from "./provider-failures";
import { ProviderError } from "./types";

const KEY = "sk-secret-5f5f5f";

describe("ProviderFailures.within", () => {
  it("passes the answer on, and sorts what a call throws: the run's cancel, the timeout, the provider's words without the key", async () => {
    const failures = new ProviderFailures("acme", createHealth(), KEY);
    expect(
      await failures.within(
        new AbortController().signal,
        1_000,
        async () => "made",
        () => null,
      ),
    ).toBe("made");

    const canceled = new AbortController();
    const reason = new Error("run canceled");
    const pending = failures.within(
      canceled.signal,
      60_000,
      (signal) => new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason))),
      () => new Error("not this"),
    );
    canceled.abort(reason);
    await expect(pending).rejects.toBe(reason);
    expect(failures.health.downUntil).toBeNull();

    const slow = failures.within(
      new AbortController().signal,
      200,
      (signal) => new Promise((_, reject) => signal.addEventListener("abort", () => reject(new Error("aborted")))),
      () => new Error("not this"),
    );
    await expect(slow).rejects.toMatchObject({
      transient: true,
      message: "The provider acme did not answer within 0.2 s. Try again later.",
    });
    expect(failures.health.downUntil).not.toBeNull();

    const refused = failures.within(
      new AbortController().signal,
      1_000,
      async () => Promise.reject(new Error("400")),
      () => failures.refused("the request", `bad key ${KEY}`),
    );
    await expect(refused).rejects.toMatchObject({
      transient: false,
      message: "The provider acme refused the request: bad key [key]",
    });
    const echoed = failures.within(
      new AbortController().signal,
      1_000,
      async () => Promise.reject(new Error("x")),
      () => new ProviderError(`echo ${encodeURIComponent(KEY)}`, false),
    );
    await expect(echoed).rejects.toMatchObject({ message: "echo [key]" });
  });
});
