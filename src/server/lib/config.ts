import { resolve } from 'node:path';

export interface Config {
  port: number;
  host: string;
  /** Embedded database, uploads and outboxes; ':memory:' keeps the embedded database in memory (tests). */
  dataDir: string;
  databaseUrl?: string;
  /** Shared state (counters, codes) in Redis instead of the database (REDIS_URL). */
  redisUrl?: string;
  /** Put before every Redis key (REDIS_PREFIX, default "ecobid:"), so that several sites or test runs can share one Redis. */
  redisPrefix: string;
  /** X-Forwarded-For is believed only from these proxies (TRUST_PROXY: addresses, subnets or "loopback"). */
  trustProxy: string[] | false;
  /** Public address of the site (PUBLIC_URL), for links in mails; without it mails carry site-relative links. */
  publicUrl?: string;
  schemasDir: string;
  adminPassword?: string;
  product: string;
  defaultTenant: string;
  smsOutbox: string;
  mailOutbox: string;
  /** Directory of the built front-ends (dist/web); absent in API-only tests. */
  webDir: string;
  localesDir: string;
  /** The project's own sources (src/engine/formats.ts goes into the browser's form validators). */
  engineDir: string;
  abuse: AbuseLimits;
  /**
   * Lists count exactly below `exactLimit` rows by the planner's estimate (LIST_EXACT_COUNT_LIMIT,
   * 100000) and give the estimate above it; an exact count asked for gives up after `timeoutMs`
   * (LIST_COUNT_TIMEOUT_MS, 5000).
   */
  listCount: { exactLimit: number; timeoutMs: number };
  files: FileLimits;
}

/** Uploaded files (services/files): where they are kept and what is accepted. */
export interface FileLimits {
  /** Largest upload in bytes (FILE_MAX_MB, default 10 MB), enforced while the upload streams. */
  maxBytes: number;
  /** Directory of the local storage backend (FILES_DIR, default DATA_DIR/files). */
  dir: string;
  /**
   * Extensions accepted as attachments (FILE_ATTACHMENT_TYPES, comma-separated); each is checked
   * against the type sniffed from the bytes. Images are always jpg, jpeg, gif, png and bmp.
   */
  attachmentTypes: string[];
}

/** What attachments may be unless FILE_ATTACHMENT_TYPES says otherwise. */
export const DEFAULT_ATTACHMENT_TYPES = [
  'jpg',
  'jpeg',
  'gif',
  'png',
  'bmp',
  'webp',
  'pdf',
  'doc',
  'docx',
  'xls',
  'xlsx',
  'ppt',
  'pptx',
  'odt',
  'ods',
  'txt',
  'csv',
  'zip',
  'rar',
  '7z',
];

/** Limits against guessing and flooding (sign-in, captchas, SMS); counters live in the shared store (lib/store). */
export interface AbuseLimits {
  /** Failed sign-ins of one user that lock it (SIGN_IN_MAX_FAILURES, default 5). */
  signInMaxFailures: number;
  /** How long a locked user stays locked, in minutes (SIGN_IN_LOCK_MINUTES, default 15). */
  signInLockMinutes: number;
  /** Seconds between two SMS codes to one mobile (SMS_INTERVAL_SECONDS, default 60). */
  smsIntervalSeconds: number;
  /** SMS codes one mobile may receive in 24 hours (SMS_DAILY_LIMIT, default 10). */
  smsDailyLimit: number;
  /** Lifetime of an SMS code in seconds (SMS_CODE_SECONDS, default 300). */
  smsCodeSeconds: number;
  /** Lifetime of a character captcha in seconds (CAPTCHA_SECONDS, default 300). */
  captchaSeconds: number;
  /** Lifetime of a password-reset code in minutes (RESET_CODE_MINUTES, default 30). */
  resetCodeMinutes: number;
  /** Requests per minute and client address to the token endpoint (RATE_LIMIT_TOKEN, default 60). */
  tokenPerMinute: number;
  /** Requests per minute and client address to the captcha and SMS endpoints (RATE_LIMIT_CAPTCHA, default 30). */
  captchaPerMinute: number;
}

export class ConfigError extends Error {
  constructor(problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

const SLUG = /^[a-z][a-z0-9_-]{0,31}$/;

function positiveInteger(env: NodeJS.ProcessEnv, name: string, fallback: number, problems: string[]): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > 1_000_000) {
    problems.push(`${name} must be a whole number from 1 to 1000000, got "${raw}"`);
    return fallback;
  }
  return value;
}

/** Reads and checks the environment variables of DESIGN.md's configuration table. */
export function readConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): Config {
  const problems: string[] = [];
  const port = Number(env.PORT ?? '3000');
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    problems.push(`PORT must be a port number, got "${env.PORT}"`);
  const databaseUrl = env.DATABASE_URL?.trim() || undefined;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    problems.push('DATABASE_URL must start with postgres:// or postgresql://');
  }
  const redisUrl = env.REDIS_URL?.trim() || undefined;
  if (redisUrl && !/^rediss?:\/\//.test(redisUrl))
    problems.push('REDIS_URL must start with redis:// or rediss://');
  const redisPrefix = env.REDIS_PREFIX?.trim() || 'ecobid:';
  if (!/^[A-Za-z0-9_.:-]{1,64}$/.test(redisPrefix))
    problems.push(`REDIS_PREFIX must be 1 to 64 letters, digits or _.:- characters, got "${redisPrefix}"`);
  const publicUrl = env.PUBLIC_URL?.trim().replace(/\/+$/, '') || undefined;
  if (publicUrl && !/^https?:\/\/[^\s/]+/.test(publicUrl))
    problems.push(`PUBLIC_URL must be an http:// or https:// address, got "${publicUrl}"`);
  // Which proxies may set X-Forwarded-For: none by default, so a client cannot choose its own
  // address (rate limits key on it); a hop count or a list of proxy addresses behind a balancer.
  const trustProxyText = env.TRUST_PROXY?.trim() ?? '';
  const trustProxy: string[] | false =
    trustProxyText === ''
      ? false
      : trustProxyText
          .split(',')
          .map((item) => item.trim())
          .filter((item) => item !== '');
  const product = env.PRODUCT?.trim() || 'ecobid';
  if (!SLUG.test(product)) problems.push(`PRODUCT must be a lower-case slug, got "${product}"`);
  const defaultTenant = env.DEFAULT_TENANT?.trim() || 'default';
  if (!SLUG.test(defaultTenant))
    problems.push(`DEFAULT_TENANT must be a lower-case code, got "${defaultTenant}"`);
  const adminPassword = env.ADMIN_PASSWORD || undefined;
  if (adminPassword !== undefined && (adminPassword.length < 6 || adminPassword.length > 31)) {
    problems.push('ADMIN_PASSWORD must be 6 to 31 characters long');
  }
  const abuse: AbuseLimits = {
    signInMaxFailures: positiveInteger(env, 'SIGN_IN_MAX_FAILURES', 5, problems),
    signInLockMinutes: positiveInteger(env, 'SIGN_IN_LOCK_MINUTES', 15, problems),
    smsIntervalSeconds: positiveInteger(env, 'SMS_INTERVAL_SECONDS', 60, problems),
    smsDailyLimit: positiveInteger(env, 'SMS_DAILY_LIMIT', 10, problems),
    smsCodeSeconds: positiveInteger(env, 'SMS_CODE_SECONDS', 300, problems),
    captchaSeconds: positiveInteger(env, 'CAPTCHA_SECONDS', 300, problems),
    resetCodeMinutes: positiveInteger(env, 'RESET_CODE_MINUTES', 30, problems),
    tokenPerMinute: positiveInteger(env, 'RATE_LIMIT_TOKEN', 60, problems),
    captchaPerMinute: positiveInteger(env, 'RATE_LIMIT_CAPTCHA', 30, problems),
  };
  const listCount = {
    exactLimit: positiveInteger(env, 'LIST_EXACT_COUNT_LIMIT', 100_000, problems),
    timeoutMs: positiveInteger(env, 'LIST_COUNT_TIMEOUT_MS', 5_000, problems),
  };
  const fileMaxMb = positiveInteger(env, 'FILE_MAX_MB', 10, problems);
  const attachmentText = env.FILE_ATTACHMENT_TYPES?.trim();
  const attachmentTypes = attachmentText
    ? attachmentText
        .split(',')
        .map((item) => item.trim().toLowerCase().replace(/^\./, ''))
        .filter((item) => item !== '')
    : DEFAULT_ATTACHMENT_TYPES;
  if (attachmentTypes.some((item) => !/^[a-z0-9]{1,10}$/.test(item)))
    problems.push(
      `FILE_ATTACHMENT_TYPES must be file extensions separated by commas, got "${attachmentText}"`,
    );
  if (problems.length > 0) throw new ConfigError(problems);
  const dataDir = env.DATA_DIR === ':memory:' ? ':memory:' : resolve(cwd, env.DATA_DIR || './data');
  const inData = (file: string): string =>
    dataDir === ':memory:' ? resolve(cwd, '.tmp', file) : resolve(dataDir, file);
  const config: Config = {
    port,
    trustProxy,
    host: env.HOST?.trim() || '127.0.0.1',
    dataDir,
    schemasDir: resolve(cwd, env.SCHEMAS_DIR || './schemas'),
    product,
    defaultTenant,
    redisPrefix,
    smsOutbox: env.SMS_OUTBOX ? resolve(cwd, env.SMS_OUTBOX) : inData('sms-outbox.jsonl'),
    mailOutbox: env.MAIL_OUTBOX ? resolve(cwd, env.MAIL_OUTBOX) : inData('mail-outbox.jsonl'),
    webDir: resolve(cwd, 'dist/web'),
    localesDir: resolve(cwd, 'locales'),
    engineDir: resolve(cwd, 'src/engine'),
    abuse,
    listCount,
    files: {
      maxBytes: fileMaxMb * 1024 * 1024,
      dir: env.FILES_DIR ? resolve(cwd, env.FILES_DIR) : inData('files'),
      attachmentTypes,
    },
  };
  if (databaseUrl) config.databaseUrl = databaseUrl;
  if (redisUrl) config.redisUrl = redisUrl;
  if (publicUrl) config.publicUrl = publicUrl;
  if (adminPassword) config.adminPassword = adminPassword;
  return config;
}
