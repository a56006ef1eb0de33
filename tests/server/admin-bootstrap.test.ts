import { describe, expect, it } from 'vitest';
import {
  adminLanguage,
  BOOTSTRAP_ID,
  lazyChunkFiles,
  localeChunkFiles,
  streamedPage,
} from '../../src/server/features/web/routes.js';
import {
  actingRoleCookie,
  tokenCookie,
  type AdminBootstrap,
} from '../../src/server/features/web/services/admin-bootstrap.js';

const PAGE =
  '<!doctype html><html><head><title>EcoBid</title></head><body><div id="root"></div></body></html>';

function bootstrapOf(nickname: string): AdminBootstrap {
  return {
    user: {
      id: 7,
      username: 'walker',
      nickname,
      roles: ['ROLE_ADMIN'],
    } as unknown as AdminBootstrap['user'],
    authority: {
      roles: ['ROLE_ADMIN'],
      currentRole: 'ROLE_ADMIN',
      postCode: null,
      menus: [],
      menu: [],
      buttons: {},
      fieldRights: {},
    },
    posts: [],
    schemas: { entities: [], messages: {} },
    actingRole: null,
  };
}

type Chunks = { scripts: string[]; styles: string[] } | undefined;

/** The page as the browser receives it, part after part. */
async function pageOf(data: AdminBootstrap | undefined, chunks: Chunks = undefined): Promise<string[]> {
  const parts: string[] = [];
  for await (const part of streamedPage({ html: PAGE, listChunks: chunks, bootstrap: Promise.resolve(data) }))
    parts.push(part);
  return parts;
}

/** The text of the page's bootstrap block, as the browser's parser sees it. */
function blockText(html: string): string {
  const start = html.indexOf(`<script type="application/json" id="${BOOTSTRAP_ID}">`);
  expect(start).toBeGreaterThan(-1);
  const body = html.slice(html.indexOf('>', start) + 1);
  // an HTML parser ends a script's text at the first "</script" whatever the JSON says
  return body.slice(0, body.search(/<\/script/i));
}

describe('the back-office bootstrap in the page', () => {
  it('is a JSON block (never run: script-src stays self) that reads back as the data', async () => {
    const data = bootstrapOf('王五');
    const html = (await pageOf(data)).join('');
    expect(JSON.parse(blockText(html))).toEqual(data);
    // in the body, so the head goes out before the data is read; the page stays whole
    expect(html.indexOf(BOOTSTRAP_ID)).toBeGreaterThan(html.indexOf('</head>'));
    expect(html.indexOf(BOOTSTRAP_ID)).toBeLessThan(html.indexOf('</body>'));
    expect(html.replace(/<script type="application\/json"[^]*<\/script>/, '')).toBe(PAGE);
  });

  it('sends the head first, before the data is known', async () => {
    let release: (data: AdminBootstrap) => void = () => undefined;
    const data = new Promise<AdminBootstrap>((resolve) => {
      release = resolve;
    });
    const parts = streamedPage({ html: PAGE, listChunks: undefined, bootstrap: data });
    const first = await parts.next();
    expect(first.value).toContain('</head>');
    expect(first.value).not.toContain(BOOTSTRAP_ID);
    release(bootstrapOf('x'));
    expect((await parts.next()).value).toContain(BOOTSTRAP_ID);
  });

  it('is no block at all without a session', async () => {
    expect((await pageOf(undefined)).join('')).toBe(PAGE);
  });

  it('cannot be closed or turned into markup by what a user typed', async () => {
    const nickname = '</script><script>alert(1)</script><!-- & \u2028';
    const html = (await pageOf(bootstrapOf(nickname))).join('');
    expect(html.match(/<script/g)).toHaveLength(1);
    const data = JSON.parse(blockText(html)) as AdminBootstrap;
    expect(data.user.nickname).toBe(nickname);
  });

  it('preloads the list screen only when asked, as module preloads and a style preload', async () => {
    const chunks = {
      scripts: ['/assets/EntityList-a.js', '/assets/table-b.js'],
      styles: ['/assets/EntityList-c.css'],
    };
    const [head = ''] = await pageOf(bootstrapOf('x'), chunks);
    const html = head.slice(0, head.indexOf('</head>'));
    expect(html).toContain('<link rel="modulepreload" crossorigin href="/assets/EntityList-a.js">');
    expect(html).toContain('<link rel="modulepreload" crossorigin href="/assets/table-b.js">');
    expect(html).toContain('<link rel="preload" as="style" crossorigin href="/assets/EntityList-c.css">');
    expect((await pageOf(bootstrapOf('x'))).join('')).not.toContain('modulepreload');
  });
});

describe('the files of a lazy screen (Vite manifest)', () => {
  const manifest = {
    'admin/index.html': { file: 'assets/admin-1.js', imports: ['_react.js', '_antd.js'] },
    '_react.js': { file: 'assets/react-2.js' },
    '_antd.js': { file: 'assets/antd-3.js', imports: ['_react.js'] },
    'admin/entity/EntityList.tsx': {
      file: 'assets/EntityList-4.js',
      imports: ['_antd.js', '_table.js'],
      css: ['assets/EntityList-5.css'],
    },
    '_table.js': {
      file: 'assets/table-6.js',
      imports: ['_react.js', '_tag.js'],
      css: ['assets/table-7.css'],
    },
    '_tag.js': { file: 'assets/tag-8.js' },
  };

  it('are the chunk and what it imports that the page has not loaded, with their styles', () => {
    expect(
      lazyChunkFiles({ manifest, page: 'admin/index.html', module: 'admin/entity/EntityList.tsx' }),
    ).toEqual({
      scripts: ['/assets/EntityList-4.js', '/assets/table-6.js', '/assets/tag-8.js'],
      styles: ['/assets/EntityList-5.css', '/assets/table-7.css'],
    });
  });

  it('are none for a module the build does not have', () => {
    expect(lazyChunkFiles({ manifest, page: 'admin/index.html', module: 'admin/Missing.tsx' })).toEqual({
      scripts: [],
      styles: [],
    });
  });
});

describe('the token cookie', () => {
  const token = 'abcdefghijklmnopqrstuvwxyz012345';
  it('is read among other cookies', () => {
    expect(tokenCookie(`language=zh; token=${token}; size=default`)).toBe(token);
  });
  it('is none when absent, empty or not shaped like a token', () => {
    expect(tokenCookie(undefined)).toBeUndefined();
    expect(tokenCookie('language=zh')).toBeUndefined();
    expect(tokenCookie('token=')).toBeUndefined();
    expect(tokenCookie("token=abc'; drop table")).toBeUndefined();
    expect(tokenCookie('token=%E0%A4%A')).toBeUndefined();
  });
});

describe('the acting-role cookie', () => {
  it('is read among other cookies, decoded', () => {
    expect(actingRoleCookie('language=zh; roleCode=ROLE_ADMIN; token=x')).toBe('ROLE_ADMIN');
    expect(actingRoleCookie('roleCode=ROLE%20A')).toBe('ROLE A');
  });
  it('is none when absent, empty, malformed or too long', () => {
    expect(actingRoleCookie(undefined)).toBeUndefined();
    expect(actingRoleCookie('token=abc')).toBeUndefined();
    expect(actingRoleCookie('roleCode=')).toBeUndefined();
    expect(actingRoleCookie('roleCode=%E0%A4%A')).toBeUndefined();
    expect(actingRoleCookie(`roleCode=${'R'.repeat(65)}`)).toBeUndefined();
  });
});

describe('the texts preloaded with the back-office page', () => {
  it('are those of the language the back-office will show: cookie, else browser, else English', () => {
    expect(adminLanguage('token=x; language=tw', 'zh-CN,zh;q=0.9')).toBe('tw');
    expect(adminLanguage('token=x', 'zh-CN,zh;q=0.9,en;q=0.8')).toBe('zh');
    expect(adminLanguage(undefined, 'zh-HK')).toBe('tw');
    expect(adminLanguage('language=xx', 'fr-FR,en;q=0.5')).toBe('en');
    expect(adminLanguage(undefined, undefined)).toBe('en');
  });
  it('are found in the manifest by the chunk named after the language', () => {
    expect(
      localeChunkFiles({
        '_zh-A1.js': { file: 'assets/zh-A1.js', name: 'zh' },
        '_en-B2.js': { file: 'assets/en-B2.js', name: 'en' },
        'admin/features/accounts/Login.tsx': { file: 'assets/Login-C3.js', name: 'Login' },
        '_en-other.js': { file: 'assets/entity-D4.js', name: 'en' },
      }),
    ).toEqual({ zh: '/assets/zh-A1.js', en: '/assets/en-B2.js' });
  });
});
