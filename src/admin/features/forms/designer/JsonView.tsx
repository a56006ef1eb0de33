import { json, jsonParseLinter } from '@codemirror/lang-json';
import { forceLinting, linter, lintGutter, type Diagnostic } from '@codemirror/lint';
import { EditorState, StateEffect } from '@codemirror/state';
import { EditorView, keymap, lineNumbers } from '@codemirror/view';
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { useEffect, useRef } from 'react';
import { checkEntitySchemaWith, type EntitySchema, type SchemaProblem } from '../../../../engine/index.js';
import { jsonPositions, spanOf } from './json-positions.js';
import { loadMetaValidator, type MetaValidate } from './meta-validator.js';

export interface JsonViewProps {
  /** The schema's text as the designer writes it. */
  text: string;
  /** A text that parses and passes the meta-schema: the form follows it. */
  onSchema: (schema: EntitySchema, text: string) => void;
  /** The problems of the text as it stands (none: it is the form; undefined: not checked yet). */
  onProblems: (count: number | undefined) => void;
  label: string;
}

/** Marks the transaction after which the text is checked again: the validator has arrived. */
const validatorArrived = StateEffect.define<null>();

function nameOf(json: unknown): string {
  const api = (json as { 'x-entity'?: { api?: unknown } } | null)?.['x-entity']?.api;
  return typeof api === 'string' ? (api.split('/').pop() ?? 'form') : 'form';
}

/**
 * The JSON view (CodeMirror 6, loaded with this page only): the entity schema, editable, checked
 * as it is typed against the meta-schema the server compiled (and the rules it cannot say), each
 * problem on its own line. A text without problems becomes the form.
 */
export default function JsonView({ text, onSchema, onProblems, label }: JsonViewProps) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | undefined>(undefined);
  const validate = useRef<MetaValidate | undefined>(undefined);
  const callbacks = useRef({ onSchema, onProblems });
  callbacks.current = { onSchema, onProblems };
  /** The last text this view handed to the form (so its own echo does not reset the editor). */
  const handed = useRef(text);

  useEffect(() => {
    if (!host.current) return;
    const parseLinter = jsonParseLinter();
    const metaLinter = (editor: EditorView): Diagnostic[] => {
      const source = editor.state.doc.toString();
      const syntax = parseLinter(editor);
      if (syntax.length > 0) {
        callbacks.current.onProblems(syntax.length);
        return syntax;
      }
      const parsed = JSON.parse(source) as unknown;
      const check = validate.current;
      // until the server's meta-schema validator arrives (then validatorArrived runs this again)
      if (!check) {
        callbacks.current.onProblems(undefined);
        return [];
      }
      const name = nameOf(parsed);
      const problems: SchemaProblem[] = checkEntitySchemaWith(
        check,
        `${name}.schema.json`,
        name,
        structuredClone(parsed),
      );
      callbacks.current.onProblems(problems.length);
      if (problems.length === 0) {
        if (source !== handed.current) {
          handed.current = source;
          callbacks.current.onSchema(parsed as EntitySchema, source);
        }
        return [];
      }
      const spans = jsonPositions(source);
      return problems.map((problem) => {
        const span = spanOf(spans, problem.pointer);
        const line = editor.state.doc.lineAt(span.from);
        return {
          from: span.from,
          to: Math.max(span.from, Math.min(span.to, line.to)),
          severity: 'error',
          message: `${problem.pointer || '/'}: ${problem.message}`,
        };
      });
    };
    const editor = new EditorView({
      parent: host.current,
      state: EditorState.create({
        doc: text,
        extensions: [
          lineNumbers(),
          history(),
          keymap.of([...defaultKeymap, ...historyKeymap]),
          json(),
          lintGutter(),
          linter(metaLinter, {
            delay: 300,
            needsRefresh: (update) =>
              update.transactions.some((transaction) =>
                transaction.effects.some((effect) => effect.is(validatorArrived)),
              ),
          }),
          EditorView.contentAttributes.of({ 'aria-label': label }),
          EditorView.theme({ '&': { height: '100%' }, '.cm-scroller': { overflow: 'auto' } }),
        ],
      }),
    });
    view.current = editor;
    // the scrolled region is reachable by the keyboard (axe: scrollable-region-focusable)
    editor.scrollDOM.tabIndex = 0;
    let isCurrent = true;
    void loadMetaValidator().then((loaded) => {
      if (!isCurrent) return;
      validate.current = loaded;
      // lint again now that the meta-schema is here (forceLinting alone runs only a pending lint:
      // a text typed before the validator came would stay unchecked)
      editor.dispatch({ effects: validatorArrived.of(null) });
      forceLinting(editor);
    });
    return () => {
      isCurrent = false;
      editor.destroy();
      view.current = undefined;
    };
    // The editor is made once; later texts arrive through the effect below.
  }, []);

  useEffect(() => {
    const editor = view.current;
    if (!editor || text === handed.current) return;
    // The canvas changed the form: the view shows it (the editor's own text would be older).
    handed.current = text;
    if (editor.state.doc.toString() !== text) {
      editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: text } });
    }
  }, [text]);

  return <div ref={host} className="formdesign-json" data-testid="json-view" />;
}
