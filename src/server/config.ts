import { resolve } from 'node:path';

export interface Config {
  port: number;
  host: string;
  /** Embedded database, uploads and outboxes; ':memory:' keeps the embedded database in memory (tests). */
  dataDir: string;
  databaseUrl?: string;
  redisUrl?: string;
  schemasDir: string;
  adminPassword?: string;
  product: string;
  defaultTenant: string;
  smsOutbox: string;
  mailOutbox: string;
  /** Directory of the built front-ends (dist/web); absent in API-only tests. */
  webDir: string;
  localesDir: string;
}

export class ConfigError extends Error {
  constructor(problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

const SLUG = /^[a-z][a-z0-9_-]{0,31}$/;

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
  const product = env.PRODUCT?.trim() || 'ecobid';
  if (!SLUG.test(product)) problems.push(`PRODUCT must be a lower-case slug, got "${product}"`);
  const defaultTenant = env.DEFAULT_TENANT?.trim() || 'default';
  if (!SLUG.test(defaultTenant))
    problems.push(`DEFAULT_TENANT must be a lower-case code, got "${defaultTenant}"`);
  const adminPassword = env.ADMIN_PASSWORD || undefined;
  if (adminPassword !== undefined && (adminPassword.length < 6 || adminPassword.length > 31)) {
    problems.push('ADMIN_PASSWORD must be 6 to 31 characters long');
  }
  if (problems.length > 0) throw new ConfigError(problems);
  const dataDir = env.DATA_DIR === ':memory:' ? ':memory:' : resolve(cwd, env.DATA_DIR || './data');
  const inData = (file: string): string =>
    dataDir === ':memory:' ? resolve(cwd, '.tmp', file) : resolve(dataDir, file);
  const config: Config = {
    port,
    host: env.HOST?.trim() || '127.0.0.1',
    dataDir,
    schemasDir: resolve(cwd, env.SCHEMAS_DIR || './schemas'),
    product,
    defaultTenant,
    smsOutbox: env.SMS_OUTBOX ? resolve(cwd, env.SMS_OUTBOX) : inData('sms-outbox.jsonl'),
    mailOutbox: env.MAIL_OUTBOX ? resolve(cwd, env.MAIL_OUTBOX) : inData('mail-outbox.jsonl'),
    webDir: resolve(cwd, 'dist/web'),
    localesDir: resolve(cwd, 'locales'),
  };
  if (databaseUrl) config.databaseUrl = databaseUrl;
  if (redisUrl) config.redisUrl = redisUrl;
  if (adminPassword) config.adminPassword = adminPassword;
  return config;
}
