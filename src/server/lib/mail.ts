import { appendJsonLine } from './outbox.js';

export interface MailMessage {
  tenantCode: string;
  to: string;
  subject: string;
  text: string;
  /** Structured parts of the text (a reset code and link), for templating providers. */
  data?: Record<string, unknown>;
}

/** Where mails go. A real SMTP or API mailer implements this; the default writes to MAIL_OUTBOX. */
export interface Mailer {
  send(message: MailMessage): Promise<void>;
}

/** Writes each mail as one JSON line to a file (MAIL_OUTBOX), for development and tests. */
export function outboxMailer(path: string): Mailer {
  return {
    send: (message) => appendJsonLine(path, { at: new Date().toISOString(), ...message }),
  };
}
