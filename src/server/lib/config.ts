import { resolve } from 'node:path';
import { isTimeZone } from '../../engine/meta.js';

export interface Config {
  port: number;
  host: string;
  /** Embedded database, uploads and outboxes; ':memory:' keeps the embedded database in memory (tests). */
  dataDir: string;
  databaseUrl?: string;
  /**
   * PostgreSQL: the workflow engine's fixed statements go as named prepared statements
   * (DATABASE_PREPARED, on by default; off behind a pooler in transaction mode that does not
   * keep prepared statements, such as PgBouncer before 1.21).
   */
  isPreparing: boolean;
  /**
   * The template's development-only mocks of sign-in, user info, logout, user search and
   * transactions (DEV_MOCKS on or off; on unless NODE_ENV is production).
   */
  isDevMocks: boolean;
  /** Shared state (counters, codes) in Redis instead of the database (REDIS_URL). */
  redisUrl?: string;
  /** Put before every Redis key (REDIS_PREFIX, default "ecobid:"), so that several sites or test runs can share one Redis. */
  redisPrefix: string;
  /** X-Forwarded-For is believed only from these proxies (TRUST_PROXY: addresses, subnets or "loopback"). */
  trustProxy: string[] | false;
  /** Public address of the site (PUBLIC_URL), for links in mails; without it mails carry site-relative links. */
  publicUrl?: string;
  schemasDir: string;
  /**
   * Where modules are looked for (docs/extending.md): src/modules, then each folder of
   * MODULE_DIRS (comma-separated, relative to the project root). Every `<dir>/<name>/server.ts`
   * is a module's server part.
   */
  moduleDirs: string[];
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
   * (LIST_COUNT_TIMEOUT_MS, 5000). A list under a row data scope counts at most `scopedLimit`
   * rows unasked (LIST_SCOPED_COUNT_LIMIT, 10000), then gives an estimate too.
   */
  listCount: { exactLimit: number; timeoutMs: number; scopedLimit: number };
  /**
   * PostgreSQL: how often the server looks for engine indexes left invalid (a concurrent build
   * killed half-way) and builds them again (INDEX_CHECK_SECONDS, 60).
   */
  indexCheckSeconds: number;
  /**
   * The IANA time zone whose wall-clock time an adopted table's timestamp without time zone
   * columns hold when the table names none (DB_LOCAL_TIME_ZONE; default the server's own zone).
   */
  dbLocalTimeZone: string;
  files: FileLimits;
  monitoring: MonitoringSettings;
  /**
   * Outbound webhooks (features/events): addresses (IPs or CIDR ranges) a webhook may reach
   * although they are loopback or private (WEBHOOK_ALLOWED_ADDRESSES, comma-separated; none by
   * default: the SSRF guard refuses them), and how often each process looks for events to
   * dispatch and deliveries due (WEBHOOK_POLL_MS, 1000).
   */
  webhooks: { allowedAddresses: string[]; pollMs: number };
}

/** Metrics, request logs and query timing (services/monitor). */
export interface MonitoringSettings {
  /** MONITORING=off turns metrics, request logs and query timing off (side-by-side benchmarks). */
  isEnabled: boolean;
  /** A scraper's bearer token for GET /api/metrics (METRICS_TOKEN); signed-in callers need the URL grant. */
  metricsToken?: string;
  /** The environment the configuration was read from, for the config centre (secrets masked there). */
  environment: Readonly<Record<string, string | undefined>>;
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
  /** An S3-compatible store instead of the local directory (S3_BUCKET set; see S3Settings). */
  s3?: S3Settings;
}

/**
 * The S3-compatible file storage (lib/storage/s3.ts): S3_BUCKET, S3_REGION (default us-east-1),
 * S3_ENDPOINT (unset: AWS itself), S3_FORCE_PATH_STYLE (default true with an endpoint),
 * S3_PREFIX; credentials from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or the AWS SDK's
 * usual chain (profile, instance role) when they are unset.
 */
export interface S3Settings {
  endpoint?: string;
  bucket: string;
  region: string;
  forcePathStyle: boolean;
  credentials?: { accessKeyId: string; secretAccessKey: string };
  prefix: string;
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

/** Reads and checks the environment variables of docs/http-contract.md's configuration table. */
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
    scopedLimit: positiveInteger(env, 'LIST_SCOPED_COUNT_LIMIT', 10_000, problems),
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
  const s3 = s3Settings(env, problems);
  const preparedText = env.DATABASE_PREPARED?.trim().toLowerCase() ?? '';
  if (preparedText && !['on', 'off'].includes(preparedText))
    problems.push(`DATABASE_PREPARED must be on or off, got "${preparedText}"`);
  const devMocksText = env.DEV_MOCKS?.trim().toLowerCase() ?? '';
  if (devMocksText && !['on', 'off'].includes(devMocksText))
    problems.push(`DEV_MOCKS must be on or off, got "${devMocksText}"`);
  const monitoringText = env.MONITORING?.trim().toLowerCase() ?? '';
  if (monitoringText && !['on', 'off'].includes(monitoringText))
    problems.push(`MONITORING must be on or off, got "${monitoringText}"`);
  const metricsToken = env.METRICS_TOKEN?.trim() || undefined;
  if (metricsToken && !/^[A-Za-z0-9_-]{20,200}$/.test(metricsToken))
    problems.push('METRICS_TOKEN must be 20 to 200 letters, digits, _ or - characters');
  const dbLocalTimeZone =
    env.DB_LOCAL_TIME_ZONE?.trim() || Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  if (!isTimeZone(dbLocalTimeZone))
    problems.push(
      `DB_LOCAL_TIME_ZONE must be an IANA time zone such as Asia/Shanghai, got "${dbLocalTimeZone}"`,
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
    isPreparing: preparedText !== 'off',
    isDevMocks: devMocksText ? devMocksText === 'on' : env.NODE_ENV !== 'production',
    schemasDir: resolve(cwd, env.SCHEMAS_DIR || './schemas'),
    moduleDirs: [
      resolve(cwd, 'src/modules'),
      ...(env.MODULE_DIRS ?? '')
        .split(',')
        .map((dir) => dir.trim())
        .filter((dir) => dir !== '')
        .map((dir) => resolve(cwd, dir)),
    ],
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
    indexCheckSeconds: positiveInteger(env, 'INDEX_CHECK_SECONDS', 60, problems),
    dbLocalTimeZone,
    webhooks: {
      allowedAddresses: (env.WEBHOOK_ALLOWED_ADDRESSES ?? '')
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item !== ''),
      pollMs: positiveInteger(env, 'WEBHOOK_POLL_MS', 1000, problems),
    },
    files: {
      maxBytes: fileMaxMb * 1024 * 1024,
      dir: env.FILES_DIR ? resolve(cwd, env.FILES_DIR) : inData('files'),
      attachmentTypes,
      ...(s3 ? { s3 } : {}),
    },
    monitoring: {
      isEnabled: monitoringText !== 'off',
      environment: env,
      ...(metricsToken ? { metricsToken } : {}),
    },
  };
  if (databaseUrl) config.databaseUrl = databaseUrl;
  if (redisUrl) config.redisUrl = redisUrl;
  if (publicUrl) config.publicUrl = publicUrl;
  if (adminPassword) config.adminPassword = adminPassword;
  return config;
}

/** The S3 settings of the environment, or undefined without S3_BUCKET (local storage). */
function s3Settings(env: Record<string, string | undefined>, problems: string[]): S3Settings | undefined {
  const bucket = env.S3_BUCKET?.trim();
  const endpoint = env.S3_ENDPOINT?.trim() || undefined;
  if (!bucket) {
    if (endpoint) problems.push('S3_ENDPOINT is set without S3_BUCKET');
    return undefined;
  }
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket))
    problems.push(
      `S3_BUCKET must be a bucket name (3 to 63 lower-case letters, digits, dots, hyphens), got "${bucket}"`,
    );
  if (endpoint && !/^https?:\/\/[^\s]+$/.test(endpoint))
    problems.push(`S3_ENDPOINT must be an http(s) address, got "${endpoint}"`);
  const pathStyle = env.S3_FORCE_PATH_STYLE?.trim().toLowerCase();
  if (pathStyle && pathStyle !== 'true' && pathStyle !== 'false')
    problems.push(`S3_FORCE_PATH_STYLE must be true or false, got "${pathStyle}"`);
  const prefix = env.S3_PREFIX?.trim() ?? '';
  if (prefix && !/^[A-Za-z0-9_-]+(\/[A-Za-z0-9_-]+)*\/$/.test(prefix))
    problems.push(`S3_PREFIX must be path segments ending with "/", got "${prefix}"`);
  const accessKeyId = env.AWS_ACCESS_KEY_ID?.trim();
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY?.trim();
  if (Boolean(accessKeyId) !== Boolean(secretAccessKey))
    problems.push('AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY must be set together');
  return {
    bucket,
    region: env.S3_REGION?.trim() || 'us-east-1',
    forcePathStyle: pathStyle ? pathStyle === 'true' : endpoint !== undefined,
    prefix,
    ...(endpoint ? { endpoint } : {}),
    ...(accessKeyId && secretAccessKey ? { credentials: { accessKeyId, secretAccessKey } } : {}),
  };
}
