import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testDialect, useTestStore } from "../store/testing/test-store";
import { createWorkspace } from "../core/workspaces/workspaces";
import { readInvitation } from "../core/workspaces/invitations";
import { inviteAndMail } from "./invite";
import { linkIn, startSmtpCatcher } from "./testing/smtp-catcher";

describe(`invitations by mail (${testDialect()})`, () => {
  const s = useTestStore();
  let smtp: Awaited<ReturnType<typeof startSmtpCatcher>>;
  beforeAll(async () => {
    smtp = await startSmtpCatcher();
  });
  afterAll(async () => {
    await smtp?.stop();
  });

  it("with SMTP_URL the link is mailed to the invitee through a real SMTP server, and opens the invitation", async () => {
    const ws = await createWorkspace({ db: s.db }, { name: "Mailed team" });
    const ctx = { db: s.db, workspaceId: ws.id, actor: { kind: "cli" as const, id: "test" } };
    const config = {
      smtpUrl: smtp.url,
      smtpFrom: "Atelier <atelier@example.com>",
      publicBaseUrl: "http://studio.example",
    };
    const { invitation, link, mail } = await inviteAndMail(
      ctx,
      { email: "mailme@example.com", role: "creator" },
      config,
      "ada@example.com",
    );
    expect(mail).toEqual({ state: "sent" });
    expect(link).toBe(`http://studio.example/invite/${invitation.token}`);
    const caught = smtp.mails.find((m) => m.to.includes("mailme@example.com"));
    expect(caught?.from).toBe("atelier@example.com");
    expect(caught?.raw).toContain("Mailed team");
    const mailed = linkIn(caught!);
    expect(mailed).toBe(link);
    const token = mailed!.split("/").at(-1)!;
    expect(await readInvitation(s.db, token)).toMatchObject({ email: "mailme@example.com", role: "creator" });
  });

  it("a mail that cannot be sent leaves the invitation standing and says why; without SMTP_URL nothing is mailed", async () => {
    const ws = await createWorkspace({ db: s.db }, { name: "Unmailed team" });
    const ctx = { db: s.db, workspaceId: ws.id, actor: { kind: "cli" as const, id: "test" } };
    const down = { smtpUrl: "smtp://127.0.0.1:1", smtpFrom: "a@example.com", publicBaseUrl: "http://x" };
    const failed = await inviteAndMail(ctx, { email: "nomail@example.com", role: "viewer" }, down, null);
    expect(failed.mail.state).toBe("failed");
    expect(await readInvitation(s.db, failed.invitation.token)).toMatchObject({ email: "nomail@example.com" });
    const off = await inviteAndMail(
      ctx,
      { email: "off@example.com", role: "viewer" },
      { ...down, smtpUrl: null },
      null,
    );
    expect(off.mail).toEqual({ state: "off" });
  });
});
