import type { FastifyInstance } from 'fastify';
import { liveRateLimit, registerRateLimit } from '../../sessions/index.js';
import { captchaRoutes } from './captcha.js';
import { outboxMailer, type Mailer } from '../../../lib/mail.js';
import { ownDetailRoutes } from './own-detail.js';
import { profileRoutes } from './profile.js';
import { recoveryRoutes } from './recovery.js';
import { registerRoutes } from './register.js';
import { signInRoutes } from './sign-ins.js';
import { outboxSmsProvider, type SmsProvider } from '../../../lib/sms.js';

export interface IdentityOptions {
  /** Defaults to the SMS_OUTBOX file. */
  sms?: SmsProvider;
  /** Defaults to the MAIL_OUTBOX file. */
  mailer?: Mailer;
}

/**
 * Accounts of docs/product.md §7 beyond sign-in: captchas, SMS codes, registration, password
 * recovery, own profile and sign-ins per day. The public calls share one rate limit per client address.
 */
export async function identityRoutes(app: FastifyInstance, options: IdentityOptions = {}): Promise<void> {
  const { config } = app.ctx;
  await registerRateLimit(app);
  const rateLimit = liveRateLimit(app, 'captcha');
  await app.register(captchaRoutes, { sms: options.sms ?? outboxSmsProvider(config.smsOutbox), rateLimit });
  await app.register(registerRoutes, { rateLimit });
  await app.register(recoveryRoutes, {
    mailer: options.mailer ?? outboxMailer(config.mailOutbox),
    rateLimit,
  });
  await app.register(profileRoutes);
  await app.register(ownDetailRoutes);
  await app.register(signInRoutes);
}
