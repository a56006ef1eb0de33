import { describe, expect, it } from 'vitest';
import { injectHead } from '../../src/server/features/web/routes.js';

const PAGE =
  '<!doctype html><html><head><meta charset="UTF-8" /><title>EcoBid</title></head><body><div id="root"></div></body></html>';

describe('the page head the server fills in', () => {
  it('puts the product title in <title> and the slug and params in meta tags the front-ends read', () => {
    const html = injectHead(PAGE, {
      product: 'ecobid',
      productTitle: '环保产业采购招投标平台',
      hotline: '400-1',
    });
    expect(html).toContain('<title>环保产业采购招投标平台</title>');
    expect(html).toContain('<meta name="ecobid-product" content="ecobid" />');
    const content = /<meta name="ecobid-params" content="([^"]*)" \/>/.exec(html)?.[1] ?? '';
    const decoded = content
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&');
    expect(JSON.parse(decoded)).toEqual({
      product: 'ecobid',
      productTitle: '环保产业采购招投标平台',
      hotline: '400-1',
    });
    expect(html.indexOf('ecobid-params')).toBeLessThan(html.indexOf('</head>'));
  });

  it('escapes what an operator typed, so a param cannot close the tag or add markup', () => {
    const html = injectHead(PAGE, {
      product: 'ecobid',
      productTitle: '</title><script>alert(1)</script>"\'&',
    });
    expect(html).not.toContain('<script>');
    expect(html).toContain(
      '<title>&lt;/title&gt;&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;</title>',
    );
    expect(html.match(/<meta /g)).toHaveLength(3);
  });

  it('keeps the built title when no product title is configured', () => {
    expect(injectHead(PAGE, { product: 'ecobid', productTitle: ' ' })).toContain('<title>EcoBid</title>');
  });
});
