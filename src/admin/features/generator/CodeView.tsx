import { useEffect, useState } from 'react';
import type * as HighlightModule from './highlight.js';

type Highlighter = typeof HighlightModule;
let loading: Promise<Highlighter> | undefined;

/** Highlighted code (highlight.js loaded on first use); plain text until it is there. */
export function CodeView({ code, path, testId }: { code: string; path: string; testId?: string }) {
  const [html, setHtml] = useState<string | undefined>(undefined);
  useEffect(() => {
    let isCurrent = true;
    setHtml(undefined);
    loading ??= import('./highlight.js');
    void loading.then((module) => {
      if (isCurrent) setHtml(module.highlight(code, path));
    });
    return () => {
      isCurrent = false;
    };
  }, [code, path]);
  return (
    <pre className="codegen-code" data-testid={testId} tabIndex={0}>
      {html === undefined ? (
        <code>{code}</code>
      ) : (
        // highlight.js escapes the code; the markup is its own spans.
        <code className="hljs" data-highlighted="yes" dangerouslySetInnerHTML={{ __html: html }} />
      )}
    </pre>
  );
}
