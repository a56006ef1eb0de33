import hljs from 'highlight.js/lib/core';
import json from 'highlight.js/lib/languages/json';
import sqlLanguage from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import 'highlight.js/styles/github.css';

/**
 * Syntax highlighting of generated code: highlight.js core with the three languages the
 * generator writes, loaded by the code generator's pages only (dynamic import).
 */
hljs.registerLanguage('typescript', typescript);
hljs.registerLanguage('sql', sqlLanguage);
hljs.registerLanguage('json', json);

export function languageOf(path: string): string {
  if (path.endsWith('.sql')) return 'sql';
  if (path.endsWith('.json')) return 'json';
  return 'typescript';
}

/** HTML of the highlighted code: highlight.js escapes the text itself. */
export function highlight(code: string, path: string): string {
  return hljs.highlight(code, { language: languageOf(path), ignoreIllegals: true }).value;
}
