import { EditorState } from '@codemirror/state';
import { EditorView, keymap, lineNumbers } from '@codemirror/view';
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { useEffect, useRef } from 'react';

/**
 * The template text editor (CodeMirror 6, loaded with this module only by the template page).
 * Jumps to a line and column when the page asks (an error's place).
 */
export default function TemplateEditor({
  value,
  onChange,
  focusAt,
  label,
}: {
  value: string;
  onChange: (value: string) => void;
  focusAt: { line: number; column: number } | undefined;
  label: string;
}) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | undefined>(undefined);
  const change = useRef(onChange);
  change.current = onChange;

  useEffect(() => {
    if (!host.current) return;
    const editor = new EditorView({
      parent: host.current,
      state: EditorState.create({
        doc: value,
        extensions: [
          lineNumbers(),
          history(),
          keymap.of([...defaultKeymap, ...historyKeymap]),
          EditorView.lineWrapping,
          EditorView.contentAttributes.of({ 'aria-label': label }),
          EditorView.updateListener.of((update) => {
            if (update.docChanged) change.current(update.state.doc.toString());
          }),
        ],
      }),
    });
    view.current = editor;
    return () => editor.destroy();
    // Created once per template (the page keys it by template); later values come from typing.
  }, []);

  useEffect(() => {
    const editor = view.current;
    if (!editor || !focusAt) return;
    const doc = editor.state.doc;
    const line = doc.line(Math.min(Math.max(focusAt.line, 1), doc.lines));
    const at = Math.min(line.from + Math.max(focusAt.column - 1, 0), line.to);
    editor.dispatch({ selection: { anchor: at }, scrollIntoView: true });
    editor.focus();
  }, [focusAt]);

  return <div ref={host} className="codegen-editor" data-testid="template-editor" />;
}
