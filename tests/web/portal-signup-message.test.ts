/**
 * Issue 39 point 10: the portal's sign-up message promised a 企业认证 in 个人中心 that does not
 * exist; it now names the personal centre's 我的企业 section, in every language.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

interface PortalTexts {
  portal: { auth: { registered: string }; personal: { sections: { company: string } } };
}

describe('the sign-up message names what the personal centre has', () => {
  it.each(['zh', 'tw', 'en'])('%s', (language) => {
    const texts = JSON.parse(
      readFileSync(new URL(`../../locales/${language}.json`, import.meta.url), 'utf8'),
    ) as PortalTexts;
    const message = texts.portal.auth.registered;
    expect(message).toContain(texts.portal.personal.sections.company);
    expect(message).not.toMatch(/认证|認證|verify/i);
  });
});
