import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Issue 34: "every example in docs/extending.md is a test". Each TypeScript block of the document
 * names, on its first line (`// <path>`), the fixture or framework file it was copied from; the
 * block, less that line, must appear in that file. `…` marks a part left out: the pieces between
 * must appear in the file in their order. Whitespace and trailing commas are not compared (the
 * document may wrap lines otherwise), so a changed example without a changed document fails here.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DOC = 'docs/extending.md';
const SOURCE_LINE = /^\/\/ ((?:src|tests)\/[\w./-]+\.tsx?)\b/;

interface Block {
  line: number;
  source: string | undefined;
  code: string;
}

/** The ```ts and ```tsx blocks of a Markdown text, with the line each opens on. */
function codeBlocks(markdown: string): Block[] {
  const blocks: Block[] = [];
  const lines = markdown.split('\n');
  for (let index = 0; index < lines.length; index += 1) {
    if (!/^```tsx?\s*$/.test(lines[index] ?? '')) continue;
    const start = index;
    const body: string[] = [];
    for (index += 1; index < lines.length && !(lines[index] ?? '').startsWith('```'); index += 1)
      body.push(lines[index] ?? '');
    const source = SOURCE_LINE.exec(body[0] ?? '')?.[1];
    blocks.push({ line: start + 1, source, code: (source ? body.slice(1) : body).join('\n') });
  }
  return blocks;
}

/** Code as compared: no whitespace, no trailing comma before a closing bracket. */
function normalise(code: string): string {
  return code.replace(/\s+/g, '').replace(/,(?=[}\])]|$)/g, '');
}

/** The pieces of a block (split at `…`) missing from the source, in order. */
function missingPieces(code: string, source: string): string[] {
  const text = normalise(source);
  const missing: string[] = [];
  let from = 0;
  for (const piece of code.split('…').map((part) => normalise(part.replace(/^\s*\/\/\s*$/gm, '')))) {
    const bare = piece;
    if (bare === '') continue;
    const at = text.indexOf(bare, from);
    if (at < 0) missing.push(bare);
    else from = at + bare.length;
  }
  return missing;
}

describe('docs/extending.md', () => {
  const blocks = codeBlocks(readFileSync(join(ROOT, DOC), 'utf8'));

  it('has TypeScript examples, each naming the file it was copied from', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(6);
    expect(blocks.filter((block) => !block.source).map((block) => `${DOC}:${block.line}`)).toEqual([]);
  });

  for (const block of blocks)
    it(`the example at line ${block.line} is in ${block.source ?? '(no file named)'}`, () => {
      const source = readFileSync(join(ROOT, block.source ?? DOC), 'utf8');
      expect(missingPieces(block.code, source)).toEqual([]);
    });

  it('notices a changed example', () => {
    const source = 'const limit = await param(BUDGET_LIMIT_PARAM);\nif (a) {\n  go(1, 2,\n  );\n}\n';
    expect(
      missingPieces('const limit = await param(BUDGET_LIMIT_PARAM);\n…\nif (a) { go(1, 2); }', source),
    ).toEqual([]);
    expect(missingPieces("const limit = await param('purchaseBudgetLimit');", source)).toHaveLength(1);
    expect(missingPieces('if (a) {\n…\nconst limit', source)).toHaveLength(1);
  });
});
