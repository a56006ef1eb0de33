import { describe, expect, it } from 'vitest';
import { BOOTSTRAP_ID, injectBootstrap, lazyChunkFiles } from '../../src/server/routes/web.js';
import { tokenCookie, type AdminBootstrap } from '../../src/server/services/sessions/admin-bootstrap.js';

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
    },
    posts: [],
    schemas: { entities: [] },
  };
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
  it('is a JSON block (never run: script-src stays self) that reads back as the data', () => {
    const data = bootstrapOf('王五');
    const html = injectBootstrap(PAGE, data, undefined);
    expect(JSON.parse(blockText(html))).toEqual(data);
    expect(html.indexOf(BOOTSTRAP_ID)).toBeLessThan(html.indexOf('</head>'));
  });

  it('cannot be closed or turned into markup by what a user typed', () => {
    const nickname = '</script><script>alert(1)</script><!-- & \u2028';
    const html = injectBootstrap(PAGE, bootstrapOf(nickname), undefined);
    expect(html.match(/<script/g)).toHaveLength(1);
    const data = JSON.parse(blockText(html)) as AdminBootstrap;
    expect(data.user.nickname).toBe(nickname);
  });

  it('preloads the list screen only when asked, as module preloads and a style preload', () => {
    const chunks = {
      scripts: ['/assets/EntityList-a.js', '/assets/table-b.js'],
      styles: ['/assets/EntityList-c.css'],
    };
    const html = injectBootstrap(PAGE, bootstrapOf('x'), chunks);
    expect(html).toContain('<link rel="modulepreload" crossorigin href="/assets/EntityList-a.js">');
    expect(html).toContain('<link rel="modulepreload" crossorigin href="/assets/table-b.js">');
    expect(html).toContain('<link rel="preload" as="style" crossorigin href="/assets/EntityList-c.css">');
    expect(injectBootstrap(PAGE, bootstrapOf('x'), undefined)).not.toContain('modulepreload');
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
    expect(lazyChunkFiles(manifest, 'admin/index.html', 'admin/entity/EntityList.tsx')).toEqual({
      scripts: ['/assets/EntityList-4.js', '/assets/table-6.js', '/assets/tag-8.js'],
      styles: ['/assets/EntityList-5.css', '/assets/table-7.css'],
    });
  });

  it('are none for a module the build does not have', () => {
    expect(lazyChunkFiles(manifest, 'admin/index.html', 'admin/Missing.tsx')).toEqual({
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
