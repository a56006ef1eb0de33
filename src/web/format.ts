import dayjs from 'dayjs';

/** docs/product.md §9 display format of dates. */
export const DATE_TIME_FORMAT = 'YYYY-MM-DD HH:mm:ss';

/** Ten-digit numbers (or numeric strings) are Unix seconds, longer ones milliseconds (docs/product.md §9). */
function toDate(value: string | number | Date): Date {
  if (value instanceof Date) return value;
  if (typeof value === 'number')
    return new Date(String(Math.trunc(value)).length === 10 ? value * 1000 : value);
  if (/^\d+$/.test(value)) return toDate(Number(value));
  return new Date(value);
}

/** YYYY-MM-DD HH:mm:ss; an empty value or a dash shows as is. */
export function formatDateTime(value: string | number | Date | null | undefined): string {
  if (value === null || value === undefined || value === '' || value === '-') return value ?? '';
  const date = toDate(value);
  return Number.isNaN(date.getTime()) ? String(value) : dayjs(date).format(DATE_TIME_FORMAT);
}

/** parseTime of the template: {y}-{m}-{d} {h}:{i}:{s} by default, {a} the weekday (日一二三四五六). */
export function parseTime(
  value: string | number | Date | null | undefined,
  pattern = '{y}-{m}-{d} {h}:{i}:{s}',
): string | null {
  if (value === null || value === undefined || value === '') return null;
  const date = toDate(value);
  if (Number.isNaN(date.getTime())) return null;
  const parts: Record<string, number> = {
    y: date.getFullYear(),
    m: date.getMonth() + 1,
    d: date.getDate(),
    h: date.getHours(),
    i: date.getMinutes(),
    s: date.getSeconds(),
    a: date.getDay(),
  };
  return pattern.replace(/\{([ymdhisa])+\}/g, (_match, key: string) => {
    const part = parts[key] ?? 0;
    if (key === 'a') return ['日', '一', '二', '三', '四', '五', '六'][part] ?? '';
    return String(part).padStart(2, '0');
  });
}

export interface RelativeTexts {
  justNow: string;
  minutesAgo: (count: number) => string;
  hoursAgo: (count: number) => string;
  oneDayAgo: string;
}

/** Relative time (docs/product.md §9): just now under 30 s, minutes under an hour, hours under a day, 1 day under two; else the date. */
export function formatRelative(
  value: string | number | Date,
  texts: RelativeTexts,
  now = Date.now(),
): string {
  const date = toDate(value);
  const seconds = (now - date.getTime()) / 1000;
  if (seconds < 30) return texts.justNow;
  if (seconds < 3600) return texts.minutesAgo(Math.ceil(seconds / 60));
  if (seconds < 86_400) return texts.hoursAgo(Math.ceil(seconds / 3600));
  if (seconds < 172_800) return texts.oneDayAgo;
  return formatDateTime(date);
}

const UNITS = [
  { value: 1e18, symbol: 'E' },
  { value: 1e15, symbol: 'P' },
  { value: 1e12, symbol: 'T' },
  { value: 1e9, symbol: 'G' },
  { value: 1e6, symbol: 'M' },
  { value: 1e3, symbol: 'k' },
];

/** 10000 → 10k, 1500000 → 1.5M (docs/product.md §9 units k, M, G, T, P, E). */
export function abbreviateNumber(value: number, digits = 1): string {
  for (const unit of UNITS) {
    if (value >= unit.value) {
      return (value / unit.value).toFixed(digits).replace(/\.0+$|(\.[0-9]*[1-9])0+$/, '$1') + unit.symbol;
    }
  }
  return String(value);
}

/** Bytes as people read them (KB below a megabyte). */
export function formatBytes(bytes: number): string {
  if (bytes < 1024 * 1024) return `${Math.max(bytes / 1024, bytes > 0 ? 0.01 : 0).toFixed(2)} KB`;
  if (bytes < 1024 * 1024 * 1024) return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
  return `${(bytes / 1024 / 1024 / 1024).toFixed(2)} GB`;
}

/** 1234567.5 → 1,234,567.5 */
export function thousands(value: number | string): string {
  const [whole = '', fraction] = String(value).split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return fraction === undefined ? grouped : `${grouped}.${fraction}`;
}

/** One unit of money a language counts in: from divisor up, text with {{amount}} (万元, CNY … million). */
export interface AmountScale {
  divisor: number;
  text: string;
}

/**
 * An amount of yuan in the units a reader of the language expects: Chinese counts in 万 and 亿
 * (1286 万元), English in millions with the currency code (CNY 12.86 million). The scales come
 * from the language's texts, largest first; the amount keeps up to two decimals.
 */
export function formatAmount(value: number, scales: readonly AmountScale[], locale: string): string {
  const scale = scales.find((item) => Math.abs(value) >= item.divisor) ?? scales[scales.length - 1];
  const divisor = scale?.divisor ?? 1;
  const amount = new Intl.NumberFormat(locale, { maximumFractionDigits: 2 }).format(value / divisor);
  return scale ? scale.text.replace('{{amount}}', amount) : amount;
}
