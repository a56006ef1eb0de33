import { appendJsonLine } from './outbox.js';

export interface SmsMessage {
  tenantCode: string;
  mobile: string;
  text: string;
  /** The code the text carries, for providers that template it themselves. */
  code: string;
}

/** Where SMS codes go. A real gateway implements this; the default writes to SMS_OUTBOX. */
export interface SmsProvider {
  send(message: SmsMessage): Promise<void>;
}

/** Writes each message as one JSON line to a file (SMS_OUTBOX), for development and tests. */
export function outboxSmsProvider(path: string): SmsProvider {
  return {
    send: (message) => appendJsonLine(path, { at: new Date().toISOString(), ...message }),
  };
}
