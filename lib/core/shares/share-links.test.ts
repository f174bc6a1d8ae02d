import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { checkBlobLink } from "../../blobs/links";
import { finishRun } from "../../engine/finish";
import { testCtx, testDialect, useTestStore } from "../../store/testing/test-store";
import type { Ctx } from "../context";
import { ApiError } from "../../primitives/errors";
import type { StoredOutput } from "../runs/generation-view";
import { createGeneration } from "../runs/generations";
import {
  createShareLink,
  isSignedShareToken,
  listShareLinks,
  listShareLinksForOps,
  readSharedRun,
  revokeShareLink,
  isShareLinkLive,
} from "./share-links";
import { opsPrincipal } from "../ops/ops-principal";
import { createUser } from "../workspaces/users";
import { createWorkspace } from "../workspaces/workspaces";

const DAY_MS = 86_400_000;

describe(`share links (${testDialect()})`, () => {
  const s = useTestStore();

  async function workspace(name: string): Promise<Ctx> {
    const ws = await createWorkspace({ db: s.db }, { name, creditMicros: 1_000_000 });
    return { ...testCtx(s.t, ws.id), actor: { kind: "user", id: "usr_sharer" }, source: "studio" };
  }

  /** A run of `ctx`, ended as a worker ends it: succeeded with a video and its poster, or failed. */
  async function run(
    ctx: Ctx,
    outcome: "succeeded" | "failed" | "queued" = "succeeded",
    input: Record<string, unknown> = { prompt: "ocean dusk" },
  ) {
    const { generation } = await createGeneration(ctx, { model: "atelier/gradient", input });
    if (outcome === "queued") return generation.id;
    await s.db
      .updateTable("generations")
      .set({
        status: "running",
        started_at: new Date().toISOString(),
        lease_owner: "share-test",
        lease_expires_at: new Date(Date.now() + 3_600_000).toISOString(),
      })
      .where("id", "=", generation.id)
      .execute();
    const outputs: StoredOutput[] = [
      {
        type: "image",
        blob: await ctx.services.blobs.put(Buffer.from("png bytes")),
        content_type: "image/png",
        bytes: 9,
        width: 8,
        height: 8,
      },
      {
        type: "video",
        blob: await ctx.services.blobs.put(Buffer.from("mp4 bytes")),
        content_type: "video/mp4",
        bytes: 9,
        width: 8,
        height: 8,
        duration: 2,
        poster: {
          blob: await ctx.services.blobs.put(Buffer.from("poster")),
          content_type: "image/jpeg",
          width: 8,
          height: 8,
        },
      },
    ];
    const result =
      outcome === "succeeded"
        ? { status: "succeeded" as const, outputs }
        : { status: "failed" as const, message: "nope" };
    expect(
      await finishRun(s.db, ctx.services, { id: generation.id, owner: "share-test", outcome: result }),
    ).not.toBeNull();
    return generation.id;
  }

  const read = (ctx: Ctx, token: unknown, now?: Date) =>
    readSharedRun({ db: s.db, services: ctx.services }, { token, now });

  async function expectNotFound(promise: Promise<unknown>): Promise<ApiError> {
    const err = await promise.then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe("resource_not_found");
    return err as ApiError;
  }

  it("creates a link shown once, reads the run through it (input only when chosen), lists and revokes it", async () => {
    const ctx = await workspace("share a");
    const runId = await run(ctx, "succeeded", { prompt: "ocean dusk", num_images: 1 });

    const hidden = await createShareLink(ctx, { runId, expires: "7d", showInput: false });
    expect(hidden).toMatchObject({
      object: "share_link",
      run_id: runId,
      show_input: false,
      state: "active",
      revoked_at: null,
      created_by: "usr_sharer",
      open_count: 0,
    });
    expect(hidden.id).toMatch(/^shr_[0-9A-Za-z]{24}$/);
    expect(hidden.token).toMatch(/^[0-9A-Za-z]{24}\.[0-9A-Za-z_-]{22}$/);
    expect(hidden.path).toBe(`/s/${hidden.token}`);
    expect(hidden.hint).toBe(`/s/…${hidden.token.slice(-4)}`);
    expect(Date.parse(hidden.expires_at!) - Date.parse(hidden.created_at)).toBe(7 * DAY_MS);

    // The store keeps only the token's hash.
    const row = await s.db.selectFrom("share_links").selectAll().where("id", "=", hidden.id).executeTakeFirstOrThrow();
    expect(row.token_hash).toBe(createHash("sha256").update(hidden.token).digest("hex"));
    expect(JSON.stringify(row)).not.toContain(hidden.token.slice(0, 24));

    const shared = await read(ctx, hidden.token);
    expect(shared).toMatchObject({
      model: "atelier/gradient",
      model_name: "Gradient",
      modality: "image",
      prompt: null,
      details: null,
      outputs_purged_at: null,
    });
    expect(Object.keys(shared).sort()).toEqual([
      "completed_at",
      "details",
      "modality",
      "model",
      "model_name",
      "outputs",
      "outputs_purged_at",
      "prompt",
    ]);
    expect(JSON.stringify(shared)).not.toContain(runId);
    expect(JSON.stringify(shared)).not.toContain(ctx.workspaceId);
    expect(JSON.stringify(shared)).not.toContain("ocean dusk");
    // Outputs and the poster come as signed same-origin links that the blob door accepts.
    expect(shared.outputs.map((o) => o.type)).toEqual(["image", "video"]);
    for (const url of [shared.outputs[0]!.url, shared.outputs[1]!.url, shared.outputs[1]!.poster!.url]) {
      expect(url).toMatch(/^\/v1\/blobs\/[^?]+\?type=/);
      const parsed = new URL(url, "http://any.host");
      const key = parsed.pathname.split("/").pop()!;
      expect(checkBlobLink(ctx.services.secretKey, key, Object.fromEntries(parsed.searchParams))).toMatchObject({
        ok: true,
      });
    }
    expect(shared.outputs[1]).toMatchObject({ duration: 2, poster: { width: 8, height: 8 } });
    // Downloads are named after the model and the output, never the run.
    const download = new URL(shared.outputs[1]!.download_url, "http://any.host");
    expect(download.searchParams.get("filename")).toBe("gradient-2.mp4");
    expect(
      checkBlobLink(
        ctx.services.secretKey,
        download.pathname.split("/").pop()!,
        Object.fromEntries(download.searchParams),
      ),
    ).toMatchObject({ ok: true, filename: "gradient-2.mp4" });

    const shown = await createShareLink(ctx, { runId, expires: "never", showInput: true });
    // The first made a second earlier, so the list's order is not left to two equal times.
    await s.db
      .updateTable("share_links")
      .set({ created_at: new Date(Date.parse(hidden.created_at) - 1000).toISOString() })
      .where("id", "=", hidden.id)
      .execute();
    expect(shown.expires_at).toBeNull();
    const withInput = await read(ctx, shown.token);
    expect(withInput.prompt).toEqual({ name: "prompt", title: expect.any(String), value: "ocean dusk" });
    expect(withInput.details?.find((d) => d.name === "num_images")?.value).toBe("1");
    expect(withInput.details?.map((d) => d.name)).not.toContain("prompt");

    // Opens are counted; the list is newest first.
    await read(ctx, shown.token);
    const listed = await listShareLinks(ctx, { runId });
    expect(listed.map((l) => [l.id, l.open_count, l.show_input])).toEqual([
      [shown.id, 2, true],
      [hidden.id, 1, false],
    ]);
    expect(listed[0]).not.toHaveProperty("token");
    expect(listed[0]!.last_opened_at).not.toBeNull();

    // The page's blob links name their share link, which the blob door asks after.
    const hiddenLink = new URL(shared.outputs[0]!.url, "http://any.host");
    const check = checkBlobLink(
      ctx.services.secretKey,
      hiddenLink.pathname.split("/").pop()!,
      Object.fromEntries(hiddenLink.searchParams),
    );
    expect(check).toMatchObject({ ok: true, share: hidden.id });
    expect(await isShareLinkLive(s.db, hidden.id)).toBe(true);
    const revoked = await revokeShareLink(ctx, { id: hidden.id });
    expect(revoked).toMatchObject({ state: "revoked", id: hidden.id });
    expect(revoked.revoked_at).not.toBeNull();
    await expectNotFound(read(ctx, hidden.token));
    expect(await isShareLinkLive(s.db, hidden.id)).toBe(false);
    expect(await isShareLinkLive(s.db, shown.id)).toBe(true);
    for (const other of ["shr_unknown", "gen_x", "", "__proto__", "shr_\u0000"])
      expect(await isShareLinkLive(s.db, other)).toBe(false);
    // Revoking again keeps the first time; the other link still works.
    expect((await revokeShareLink(ctx, { id: hidden.id })).revoked_at).toBe(revoked.revoked_at);
    expect((await read(ctx, shown.token)).outputs).toHaveLength(2);
    expect((await listShareLinks(ctx, { runId })).find((l) => l.id === hidden.id)).toMatchObject({
      state: "revoked",
      open_count: 1,
    });
  });

  it("an expired link reads as not found and is listed as expired", async () => {
    const ctx = await workspace("share expiry");
    const runId = await run(ctx);
    const link = await createShareLink(ctx, { runId, expires: "1d" });
    expect(Date.parse(link.expires_at!) - Date.parse(link.created_at)).toBe(DAY_MS);
    expect((await read(ctx, link.token, new Date(Date.now() + DAY_MS - 60_000))).outputs).toHaveLength(2);
    const err = await expectNotFound(read(ctx, link.token, new Date(Date.now() + DAY_MS + 1000)));
    // Not found says nothing of why: expired, revoked and never made read the same.
    const unknown = await expectNotFound(read(ctx, `${"A".repeat(24)}.${"B".repeat(22)}`));
    expect(err.message).toBe(unknown.message);
    // An expired link opened no page, so it counted no open.
    await s.db
      .updateTable("share_links")
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where("id", "=", link.id)
      .execute();
    await expectNotFound(read(ctx, link.token));
    expect((await listShareLinks(ctx, { runId }))[0]).toMatchObject({ state: "expired", open_count: 1 });
  });

  it("refuses forged, tampered and garbage tokens without finding anything", async () => {
    const ctx = await workspace("share forged");
    const runId = await run(ctx);
    const { token } = await createShareLink(ctx, { runId, showInput: true });
    const [random, signature] = token.split(".") as [string, string];
    const flip = (c: string) => (c === "A" ? "B" : "A");
    const garbage: unknown[] = [
      "",
      "x",
      random,
      `${random}.`,
      `${random}.${signature.slice(0, -1)}`,
      `${random}.${signature}x`,
      `${random}.${signature.slice(0, -1)}${flip(signature.slice(-1))}`,
      `${flip(random[0]!)}${random.slice(1)}.${signature}`,
      `${random}\u0000${signature}`,
      `${random}.${signature.slice(0, -1)}\u0000`,
      `\u0000${token}`,
      `${token}\u0000`,
      `${token} `,
      token.toUpperCase(),
      encodeURIComponent(`${random}/${signature}`),
      "../../etc/passwd",
      "%00",
      "' OR 1=1 --",
      "a".repeat(10_000_000),
      `${token}${"a".repeat(100_000)}`,
      null,
      undefined,
      42,
      { token },
      [token],
    ];
    for (const bad of garbage) await expectNotFound(read(ctx, bad));
    // A token signed with another installation's key is refused too.
    expect(isSignedShareToken("another-secret-key-another-secret-key", token)).toBe(false);
    expect(isSignedShareToken(ctx.services.secretKey, token)).toBe(true);
    await expectNotFound(
      readSharedRun(
        { db: s.db, services: { secretKey: "another-secret-key-another-secret-key", blobs: ctx.services.blobs } },
        { token },
      ),
    );
    // The real one still works.
    expect((await read(ctx, token)).prompt?.value).toBe("ocean dusk");
  });

  it("shares only succeeded runs of the workspace, and another workspace can neither list nor revoke", async () => {
    const ctx = await workspace("share owner");
    const other = await workspace("share other");
    const runId = await run(ctx);
    const failed = await run(ctx, "failed");
    const queued = await run(ctx, "queued");

    for (const [id, why] of [
      [failed, /failed/],
      [queued, /not started/],
    ] as const) {
      const err = await createShareLink(ctx, { runId: id }).then(
        () => null,
        (e: unknown) => e as ApiError,
      );
      expect(err).toMatchObject({ code: "invalid_request", status: 409, param: "run" });
      expect(err!.message).toMatch(why);
      expect(err!.message).toMatch(/only a succeeded run can be shared/);
    }
    expect(
      await s.db.selectFrom("share_links").selectAll().where("generation_id", "in", [failed, queued]).execute(),
    ).toEqual([]);

    const link = await createShareLink(ctx, { runId });
    // The other workspace: the run is not found, the link is not found, and nothing changes.
    for (const attempt of [
      () => createShareLink(other, { runId }),
      () => listShareLinks(other, { runId }),
      () => revokeShareLink(other, { id: link.id }),
      () => revokeShareLink(ctx, { id: "shr_missing" }),
      () => revokeShareLink(ctx, { id: "shr_\u0000" }),
      () => revokeShareLink(ctx, { id: runId }),
      () => listShareLinks(ctx, { runId: "gen_missing" }),
      () => listShareLinks(ctx, { runId: "gen_\u0000x" }),
      () => createShareLink(ctx, { runId: "x".repeat(100_000) }),
    ]) {
      await expectNotFound(attempt());
    }
    expect((await listShareLinks(ctx, { runId }))[0]).toMatchObject({ id: link.id, state: "active" });
    expect((await read(ctx, link.token)).outputs).toHaveLength(2);

    // Bad choices are named.
    await expect(createShareLink(ctx, { runId, expires: "2d" })).rejects.toMatchObject({
      code: "invalid_parameter",
      param: "expires",
    });
    await expect(createShareLink(ctx, { runId, expires: "__proto__" })).rejects.toMatchObject({
      code: "invalid_parameter",
      param: "expires",
    });
    await expect(createShareLink(ctx, { runId, showInput: "yes" as unknown as boolean })).rejects.toMatchObject({
      code: "invalid_parameter",
      param: "show_input",
    });

    // Scopes: reading lists, writing makes and revokes.
    const readOnly = { ...ctx, scopes: ["generations:read" as const] };
    await expect(createShareLink(readOnly, { runId })).rejects.toMatchObject({ code: "permission_denied" });
    await expect(revokeShareLink(readOnly, { id: link.id })).rejects.toMatchObject({ code: "permission_denied" });
    expect(await listShareLinks(readOnly, { runId })).toHaveLength(1);
  });

  it("ops see the latest links of every workspace with who made them", async () => {
    const a = await workspace("share ops a");
    const b = await workspace("share ops b");
    const [runA, runB] = [await run(a), await run(b)];
    const user = await createUser(
      { db: s.db },
      { email: "sharer@example.com", password: "long enough", workspaceId: a.workspaceId, role: "creator" },
    );
    const first = await createShareLink(
      { ...a, actor: { kind: "user", id: user.id } },
      { runId: runA, expires: "30d" },
    );
    // Made a second earlier, so the order is not left to two equal times.
    await s.db
      .updateTable("share_links")
      .set({ created_at: new Date(Date.parse(first.created_at) - 1000).toISOString() })
      .where("id", "=", first.id)
      .execute();
    const second = await createShareLink(
      { ...b, actor: { kind: "api_key", id: "key_unknown" } },
      { runId: runB, expires: "never", showInput: true },
    );
    await revokeShareLink(a, { id: first.id });
    const operator = await createUser(
      { db: s.db },
      { email: "share-ops@example.com", password: "long enough", workspaceId: b.workspaceId, role: "owner", ops: true },
    );
    const principal = await opsPrincipal(s.db, operator.id);
    const ops = await listShareLinksForOps(principal);
    const mine = ops.filter((l) => l.id === first.id || l.id === second.id);
    expect(mine.map((l) => [l.id, l.workspace_name, l.run_id, l.model, l.created_by, l.state])).toEqual([
      [second.id, "share ops b", runB, "atelier/gradient", "key_unknown", "active"],
      [first.id, "share ops a", runA, "atelier/gradient", "sharer@example.com", "revoked"],
    ]);
    expect(mine[0]).not.toHaveProperty("token");
    expect(await listShareLinksForOps(principal, { limit: 1 })).toHaveLength(1);
  });
});
