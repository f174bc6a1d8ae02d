// Mail the install sends (invitations), through nodemailer to SMTP_URL. Off when SMTP_URL is unset:
// the studio and the CLI then show the link to pass on by hand.
import type { Config } from "./config";

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  send(message: MailMessage): Promise<void>;
}

const mailers = new Map<string, Mailer>();

/** The mailer of SMTP_URL (one transport per URL and process), or null when mail is off. */
export function mailerFor(config: Pick<Config, "smtpUrl" | "smtpFrom">): Mailer | null {
  if (!config.smtpUrl) return null;
  const key = `${config.smtpUrl}\n${config.smtpFrom}`;
  let mailer = mailers.get(key);
  if (!mailer) {
    // Loaded only when mail is on: the admin CLI and the server start without its ~400 kB.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const nodemailer = require("nodemailer") as typeof import("nodemailer");
    const transport = nodemailer.createTransport(config.smtpUrl);
    mailer = {
      async send(message) {
        await transport.sendMail({ from: config.smtpFrom, ...message });
      },
    };
    mailers.set(key, mailer);
  }
  return mailer;
}
