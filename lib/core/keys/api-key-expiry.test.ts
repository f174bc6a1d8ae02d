// A key's expiry is one of the listed choices, tested as an own property: the names every object
// has through its prototype are refused as invalid_parameter (they answered 500 through `in`).
import { describe, expect, it } from "vitest";
import { testDialect, useTestStore } from "../../store/testing/test-store";
import { createApiKey, type KeyExpiry } from "./api-keys";
import { ApiError } from "../../primitives/errors";
import { createWorkspace } from "../workspaces/workspaces";

describe(`API key expiry choices (${testDialect()})`, () => {
  const s = useTestStore();

  it.each(["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf"])(
    "expires %s → 400 invalid_parameter expires",
    async (expires) => {
      const ws = await createWorkspace({ db: s.db }, { name: "expiry test" });
      const err = await createApiKey(
        { db: s.db },
        { workspaceId: ws.id, expires: expires as KeyExpiry, prefix: "sk_test" },
      ).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).code).toBe("invalid_parameter");
      expect((err as ApiError).param).toBe("expires");
      expect(await s.db.selectFrom("api_keys").select("id").where("workspace_id", "=", ws.id).execute()).toEqual([]);
    },
  );

  it("a name that is not text → 400 invalid_parameter name", async () => {
    const ws = await createWorkspace({ db: s.db }, { name: "expiry test" });
    const err = await createApiKey({ db: s.db }, { workspaceId: ws.id, name: {} as string, prefix: "sk_test" }).then(
      () => null,
      (e: unknown) => e,
    );
    expect((err as ApiError).param).toBe("name");
  });
});
