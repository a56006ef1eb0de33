import type { AppContext } from '../../../lib/context.js';
import { outboxMailer, type Mailer } from '../../../lib/mail.js';
import { ExpressionError } from './expressions.js';

/**
 * Issue 36's mail task (camunda:type="mail", or a send or service task with the connector
 * mail-send): the fields or input parameters to, subject and text, their `${…}` read, go out
 * through the product's mail outbox (MAIL_OUTBOX, lib/mail.ts), one mail per recipient, within
 * MAIL_TASK_BUDGETS. Bad or too many recipients, a too long subject or text: an ExpressionError
 * (the token stops in an incident naming it), nothing sent.
 */
export const MAIL_TASK_BUDGETS = {
  /** Recipients of one mail task. */
  recipients: 20,
  /** Characters of the subject. */
  subjectChars: 200,
  /** Bytes (UTF-8) of the text. */
  textBytes: 64 * 1024,
} as const;

const ADDRESS = /^[^\s@<>(),;:"]+@[^\s@<>(),;:"]+\.[^\s@<>(),;:"]+$/;

const mailers = new WeakMap<object, Mailer>();

function mailerOf(ctx: AppContext): Mailer {
  let mailer = mailers.get(ctx);
  if (!mailer) {
    mailer = outboxMailer(ctx.config.mailOutbox);
    mailers.set(ctx, mailer);
  }
  return mailer;
}

const textOf = (value: unknown): string =>
  value === null || value === undefined ? '' : Array.isArray(value) ? value.join(',') : String(value);

/** Checks and sends the mail of a mail task; `where` names the element in an error. */
export async function sendTaskMail({
  ctx,
  tenantCode,
  where,
  fields,
}: {
  ctx: AppContext;
  tenantCode: string;
  where: string;
  fields: Record<string, unknown>;
}): Promise<number> {
  const recipients = textOf(fields.to)
    .split(/[,;]/)
    .map((address) => address.trim())
    .filter((address) => address !== '');
  if (recipients.length === 0) throw new ExpressionError(`the mail task ${where} has no recipient (to)`);
  if (recipients.length > MAIL_TASK_BUDGETS.recipients)
    throw new ExpressionError(
      `the mail task ${where} has ${recipients.length} recipients, over ${MAIL_TASK_BUDGETS.recipients}`,
    );
  const bad = recipients.find((address) => !ADDRESS.test(address) || address.length > 254);
  if (bad !== undefined)
    throw new ExpressionError(
      `the mail task ${where} has a recipient that is no mail address: ${bad.slice(0, 100)}`,
    );
  const subject = textOf(fields.subject);
  if (subject.length > MAIL_TASK_BUDGETS.subjectChars)
    throw new ExpressionError(
      `the subject of the mail task ${where} is over ${MAIL_TASK_BUDGETS.subjectChars} characters`,
    );
  const text = textOf(fields.text ?? fields.html);
  if (Buffer.byteLength(text, 'utf8') > MAIL_TASK_BUDGETS.textBytes)
    throw new ExpressionError(
      `the text of the mail task ${where} is over ${MAIL_TASK_BUDGETS.textBytes / 1024} KB`,
    );
  const mailer = mailerOf(ctx);
  for (const to of recipients) await mailer.send({ tenantCode, to, subject, text });
  return recipients.length;
}
