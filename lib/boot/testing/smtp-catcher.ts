// A real SMTP server (the npm smtp-server package) on a free loopback port that keeps every mail it
// receives: what the invitation tests read their links from.
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";

export interface CaughtMail {
  from: string;
  to: string[];
  raw: string;
}

/** On `port` when given (a server configured with that SMTP_URL), else on a free one. */
export async function startSmtpCatcher(port = 0): Promise<{ url: string; mails: CaughtMail[]; stop(): Promise<void> }> {
  const mails: CaughtMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString("utf8"),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const bound = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${bound}`,
    mails,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The invitation link in a caught mail (quoted-printable soft breaks undone). */
export function linkIn(mail: CaughtMail): string | null {
  const body = mail.raw.replace(/=\r?\n/g, "").replace(/=3D/g, "=");
  return /https?:\/\/\S+\/invite\/[A-Za-z0-9_-]{43}/.exec(body)?.[0] ?? null;
}
