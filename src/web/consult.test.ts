import { describe, expect, it } from 'vitest';
import { consultUrl } from './consult.js';

const visitor = { id: 42, name: '绿源环保', zname: 'lvyuan', mobile: '13912345678' };

describe('consultUrl', () => {
  it('passes id, name and mobile under the default names', () => {
    const url = new URL(consultUrl('https://kefu.example.com/chat', '', visitor, 'https://site'));
    expect(url.origin + url.pathname).toBe('https://kefu.example.com/chat');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      userId: '42',
      name: '绿源环保',
      mobile: '13912345678',
    });
  });

  it('uses the names the site configured, keeps fixed values and the address own query', () => {
    const url = new URL(
      consultUrl(
        'https://kefu.example.com/chat?channel=7',
        'uid={id}&nick={name}&from=portal',
        visitor,
        'https://site',
      ),
    );
    expect(Object.fromEntries(url.searchParams)).toEqual({
      channel: '7',
      uid: '42',
      nick: '绿源环保',
      from: 'portal',
    });
  });

  it('sends nothing of an anonymous visitor but the fixed values', () => {
    const url = new URL(consultUrl('/kefu', 'uid={id}&from=portal', null, 'https://site'));
    expect(url.toString()).toBe('https://site/kefu?from=portal');
  });

  it('falls back to the display name when the organisation is unknown', () => {
    const url = new URL(consultUrl('/kefu', undefined, { ...visitor, name: '' }, 'https://site'));
    expect(url.searchParams.get('name')).toBe('lvyuan');
  });
});
