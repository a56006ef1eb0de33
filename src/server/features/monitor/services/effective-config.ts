import type { ConfigEntry } from '../../../../engine/api-types.js';
import type { Config } from '../../../lib/config.js';

/** The environment variables the server reads (lib/config.ts), with their defaults. */
const VARIABLES: readonly { name: string; fallback: string; isSecret?: boolean }[] = [
  { name: 'PORT', fallback: '3000' },
  { name: 'HOST', fallback: '127.0.0.1' },
  { name: 'DATA_DIR', fallback: './data' },
  { name: 'DATABASE_URL', fallback: '', isSecret: true },
  { name: 'REDIS_URL', fallback: '', isSecret: true },
  { name: 'REDIS_PREFIX', fallback: 'ecobid:' },
  { name: 'TRUST_PROXY', fallback: '' },
  { name: 'PUBLIC_URL', fallback: '' },
  { name: 'SCHEMAS_DIR', fallback: './schemas' },
  { name: 'ADMIN_PASSWORD', fallback: '', isSecret: true },
  { name: 'PRODUCT', fallback: 'ecobid' },
  { name: 'DEFAULT_TENANT', fallback: 'default' },
  { name: 'SMS_OUTBOX', fallback: 'DATA_DIR/sms-outbox.jsonl' },
  { name: 'MAIL_OUTBOX', fallback: 'DATA_DIR/mail-outbox.jsonl' },
  { name: 'SIGN_IN_MAX_FAILURES', fallback: '5' },
  { name: 'SIGN_IN_LOCK_MINUTES', fallback: '15' },
  { name: 'SMS_INTERVAL_SECONDS', fallback: '60' },
  { name: 'SMS_DAILY_LIMIT', fallback: '10' },
  { name: 'SMS_CODE_SECONDS', fallback: '300' },
  { name: 'CAPTCHA_SECONDS', fallback: '300' },
  { name: 'RESET_CODE_MINUTES', fallback: '30' },
  { name: 'RATE_LIMIT_TOKEN', fallback: '60' },
  { name: 'RATE_LIMIT_CAPTCHA', fallback: '30' },
  { name: 'LIST_EXACT_COUNT_LIMIT', fallback: '100000' },
  { name: 'LIST_COUNT_TIMEOUT_MS', fallback: '5000' },
  { name: 'LIST_SCOPED_COUNT_LIMIT', fallback: '10000' },
  { name: 'FILE_MAX_MB', fallback: '10' },
  { name: 'FILES_DIR', fallback: 'DATA_DIR/files' },
  { name: 'FILE_ATTACHMENT_TYPES', fallback: 'jpg,jpeg,gif,png,…' },
  { name: 'S3_BUCKET', fallback: '' },
  { name: 'S3_REGION', fallback: 'us-east-1' },
  { name: 'S3_ENDPOINT', fallback: '' },
  { name: 'S3_FORCE_PATH_STYLE', fallback: '' },
  { name: 'S3_PREFIX', fallback: '' },
  { name: 'AWS_ACCESS_KEY_ID', fallback: '', isSecret: true },
  { name: 'AWS_SECRET_ACCESS_KEY', fallback: '', isSecret: true },
  { name: 'MONITORING', fallback: 'on' },
  { name: 'METRICS_TOKEN', fallback: '', isSecret: true },
  { name: 'LOG_LEVEL', fallback: 'info' },
];

/** A secret shows only that it is set; a URL keeps its scheme and host but not its password. */
function mask(name: string, value: string): string {
  if (value === '') return '';
  if (name.endsWith('_URL')) {
    try {
      const url = new URL(value);
      if (url.password) url.password = '******';
      return url.toString();
    } catch {
      return '******';
    }
  }
  return '******';
}

/** What the running server was configured with, where each value came from, secrets masked. */
export function effectiveConfig(config: Config): ConfigEntry[] {
  const env = config.monitoring.environment;
  return VARIABLES.map(({ name, fallback, isSecret = false }): ConfigEntry => {
    const raw = env[name]?.trim() ?? '';
    const source = raw === '' ? 'default' : 'environment';
    const value = raw === '' ? fallback : raw;
    return { name, value: isSecret ? mask(name, value) : value, source, isSecret };
  }).concat([
    {
      name: '(database)',
      value: config.databaseUrl ? 'PostgreSQL' : 'PGlite (embedded)',
      source: config.databaseUrl ? ('environment' as const) : ('default' as const),
      isSecret: false,
    },
  ]);
}
