import { describe, expect, it } from 'vitest';
import { sanitizeRichText } from '../../src/server/lib/html.js';

/** The server's rich-text allow-list (src/server/lib/html.ts), as web/sanitize.ts has it. */
describe('sanitizeRichText', () => {
  it('keeps the editor’s formatting, links, pictures and font sizes', () => {
    const html =
      '<h2>标题</h2><p><strong>粗</strong> <em>斜</em> <u>下</u> <s>删</s> <span style="font-size: 18pt">大</span></p>' +
      '<ul><li>一</li></ul><blockquote>引</blockquote><hr><img src="/api/file/file/picture?id=3&amp;h=00ff00ff00ff00ff" alt="图">' +
      '<a href="https://example.com">链</a>';
    expect(sanitizeRichText(html)).toBe(
      '<h2>标题</h2><p><strong>粗</strong> <em>斜</em> <u>下</u> <s>删</s> <span style="font-size:18pt">大</span></p>' +
        '<ul><li>一</li></ul><blockquote>引</blockquote><hr /><img src="/api/file/file/picture?id=3&amp;h=00ff00ff00ff00ff" alt="图" />' +
        '<a href="https://example.com" target="_blank" rel="noopener noreferrer">链</a>',
    );
  });

  it('drops scripts, handlers, unsafe URLs, other styles and sizes outside 8pt to 36pt', () => {
    const clean = sanitizeRichText(
      '<script>x()</script><p onmouseover="x()" style="color:red">文</p><a href="javascript:x()">a</a>' +
        '<a href="//evil.example/">b</a><img src="data:text/html;base64,PHNjcmlwdD4="><img src="data:image/png;base64,iVBO">' +
        '<span style="font-size: 7pt">小</span><span style="font-size: 37pt">大</span><iframe src="https://x"></iframe>' +
        '<form><input value="v"></form><custom-tag>留</custom-tag>',
    );
    expect(clean).toBe(
      '<p>文</p><a target="_blank" rel="noopener noreferrer">a</a><a target="_blank" rel="noopener noreferrer">b</a>' +
        '<img src="data:image/png;base64,iVBO" /><span>小</span><span>大</span>留',
    );
  });
});
