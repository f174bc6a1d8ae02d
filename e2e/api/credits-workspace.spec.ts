// GET /v1/credits and GET /v1/workspace against workspaces made by the admin CLI.
import { expect, test } from "./fixtures";
import { addCredit, createKey, createWorkspace } from "./admin";
import { DECIMAL_USD, expectOk, ISO_MS, keyHeader } from "./helpers";

test.describe("GET /v1/credits", () => {
  test("opening credit 12.5 reads 12.50 available, 0.00 held; adding 0.0125 reads 12.5125", async ({ request }) => {
    const workspace = createWorkspace({ credit: "12.5" });
    const headers = keyHeader(createKey(workspace.id).key);
    const before = await expectOk(await request.get("/v1/credits", { headers }));
    expect(before).toEqual({ object: "credits", available_usd: "12.50", held_usd: "0.00" });

    const added = addCredit(workspace.id, "0.0125");
    expect(added).toEqual({ object: "credits", available_usd: "12.5125", held_usd: "0.00" });

    const after = await expectOk(await request.get("/v1/credits", { headers }));
    expect(after).toEqual({ object: "credits", available_usd: "12.5125", held_usd: "0.00" });
  });

  test("a workspace without opening credit reads 0.00", async ({ request }) => {
    const workspace = createWorkspace();
    const headers = keyHeader(createKey(workspace.id).key);
    const credits = await expectOk<{ available_usd: string; held_usd: string }>(
      await request.get("/v1/credits", { headers }),
    );
    expect(credits).toEqual({ object: "credits", available_usd: "0.00", held_usd: "0.00" });
    expect(credits.available_usd).toMatch(DECIMAL_USD);
  });

  test("each key reads its own workspace's balance", async ({ request }) => {
    const a = createWorkspace({ credit: "1" });
    const b = createWorkspace({ credit: "2.25" });
    const keyA = createKey(a.id).key;
    const keyB = createKey(b.id).key;
    expect((await expectOk(await request.get("/v1/credits", { headers: keyHeader(keyA) }))).available_usd).toBe("1.00");
    expect((await expectOk(await request.get("/v1/credits", { headers: keyHeader(keyB) }))).available_usd).toBe("2.25");
    addCredit(b.id, "100");
    expect((await expectOk(await request.get("/v1/credits", { headers: keyHeader(keyA) }))).available_usd).toBe("1.00");
    expect((await expectOk(await request.get("/v1/credits", { headers: keyHeader(keyB) }))).available_usd).toBe(
      "102.25",
    );
  });
});

test.describe("GET /v1/workspace", () => {
  test("returns the workspace the key belongs to", async ({ request }) => {
    const workspace = createWorkspace({ name: `Studio Nord ${Date.now()}` });
    expect(workspace.id).toMatch(/^ws_/);
    const res = await request.get("/v1/workspace", { headers: keyHeader(createKey(workspace.id).key) });
    const body = await expectOk<{ id: string; object: string; name: string; created_at: string }>(res);
    expect(body).toEqual({
      id: workspace.id,
      object: "workspace",
      name: workspace.name,
      created_at: workspace.created_at,
    });
    expect(body.created_at).toMatch(ISO_MS);
  });

  test("two workspaces' keys see two different workspaces", async ({ request }) => {
    const a = createWorkspace();
    const b = createWorkspace();
    const seenA = await expectOk<{ id: string }>(
      await request.get("/v1/workspace", { headers: keyHeader(createKey(a.id).key) }),
    );
    const seenB = await expectOk<{ id: string }>(
      await request.get("/v1/workspace", { headers: keyHeader(createKey(b.id).key) }),
    );
    expect(seenA.id).toBe(a.id);
    expect(seenB.id).toBe(b.id);
  });
});
