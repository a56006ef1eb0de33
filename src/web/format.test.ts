import { describe, expect, it } from 'vitest';
import {
  abbreviateNumber,
  formatAmount,
  formatDateTime,
  formatRelative,
  parseTime,
  thousands,
} from './format.js';
import en from '../../locales/en.json';
import tw from '../../locales/tw.json';
import zh from '../../locales/zh.json';

const texts = {
  justNow: 'just now',
  minutesAgo: (n: number) => `${n} minutes ago`,
  hoursAgo: (n: number) => `${n} hours ago`,
  oneDayAgo: '1 day ago',
};

describe('formatters (docs/product.md §9)', () => {
  it('formats dates as YYYY-MM-DD HH:mm:ss and keeps empty values and dashes', () => {
    const local = new Date(2024, 0, 2, 3, 4, 5);
    expect(formatDateTime(local)).toBe('2024-01-02 03:04:05');
    expect(formatDateTime('')).toBe('');
    expect(formatDateTime('-')).toBe('-');
    expect(formatDateTime(null)).toBe('');
  });

  it('treats ten-digit timestamps as seconds', () => {
    const seconds = Math.floor(new Date(2024, 0, 2, 3, 4, 5).getTime() / 1000);
    expect(formatDateTime(seconds)).toBe('2024-01-02 03:04:05');
    expect(parseTime(String(seconds))).toBe('2024-01-02 03:04:05');
    expect(parseTime(seconds * 1000, '{y}/{m}/{d} 周{a}')).toBe('2024/01/02 周二');
    expect(parseTime(null)).toBeNull();
  });

  it('relative time', () => {
    const now = Date.now();
    expect(formatRelative(now - 10_000, texts, now)).toBe('just now');
    expect(formatRelative(now - 5 * 60_000, texts, now)).toBe('5 minutes ago');
    expect(formatRelative(now - 2 * 3_600_000, texts, now)).toBe('2 hours ago');
    expect(formatRelative(now - 30 * 3_600_000, texts, now)).toBe('1 day ago');
    expect(formatRelative(new Date(2020, 0, 1), texts, now)).toBe('2020-01-01 00:00:00');
  });

  it('abbreviates numbers and groups thousands', () => {
    expect(abbreviateNumber(999)).toBe('999');
    expect(abbreviateNumber(10_000)).toBe('10k');
    expect(abbreviateNumber(1_500_000)).toBe('1.5M');
    expect(abbreviateNumber(2e18)).toBe('2E');
    expect(thousands(1234567.5)).toBe('1,234,567.5');
    expect(thousands(12)).toBe('12');
  });
});

describe('formatAmount (the amount unit in each language)', () => {
  it('counts in 万元 and 亿元 in Chinese, 萬元 in traditional Chinese', () => {
    expect(formatAmount(12_860_000, zh.portal.common.amount, 'zh-CN')).toBe('1,286 万元');
    expect(formatAmount(3_450_000, zh.portal.common.amount, 'zh-CN')).toBe('345 万元');
    expect(formatAmount(260_000_000, zh.portal.common.amount, 'zh-CN')).toBe('2.6 亿元');
    expect(formatAmount(8_600, zh.portal.common.amount, 'zh-CN')).toBe('8,600 元');
    expect(formatAmount(3_450_000, tw.portal.common.amount, 'zh-TW')).toBe('345 萬元');
  });

  it('says CNY and millions in English, never a Chinese unit', () => {
    expect(formatAmount(3_450_000, en.portal.common.amount, 'en')).toBe('CNY 3.45 million');
    expect(formatAmount(12_860_000, en.portal.common.amount, 'en')).toBe('CNY 12.86 million');
    expect(formatAmount(1_200_000_000, en.portal.common.amount, 'en')).toBe('CNY 1.2 billion');
    expect(formatAmount(960_000, en.portal.common.amount, 'en')).toBe('CNY 960,000');
    expect(formatAmount(0, en.portal.common.amount, 'en')).toBe('CNY 0');
  });
});
