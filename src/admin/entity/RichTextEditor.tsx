import {
  BoldOutlined,
  ItalicOutlined,
  LineOutlined,
  OrderedListOutlined,
  PictureOutlined,
  RedoOutlined,
  StrikethroughOutlined,
  UnderlineOutlined,
  UndoOutlined,
  UnorderedListOutlined,
} from '@ant-design/icons';
import { Image } from '@tiptap/extension-image';
import { FontSize, TextStyle } from '@tiptap/extension-text-style';
import { EditorContent, useEditor, useEditorState, type Editor } from '@tiptap/react';
import { StarterKit } from '@tiptap/starter-kit';
import { Button, Divider, Select, Tooltip } from 'antd';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { useT } from '../i18n.js';
import { RichTextImageDialog } from './RichTextImageDialog.js';
import { EDITOR_HEIGHT, FONT_SIZES } from './richtext-defaults.js';
import './richtext.css';

/**
 * The rich-text editor (TipTap 3) of x-ui widget richtext, in its own chunk: docs/product.md §9's defaults
 * (height 360, width auto, font sizes 8pt to 36pt), a toolbar of labelled buttons reachable
 * with Tab, and the image-upload dialog of docs/product.md §2.4. The HTML it produces keeps to the
 * allow-list both the server (src/server/lib/html.ts) and the pages showing it sanitise with.
 */

/** What an empty editor holds: no value (a required field says so). */
const EMPTY = /^(<p>\s*<\/p>)*$/;
const COMMIT_DELAY_MS = 300;

export interface RichTextEditorProps {
  id: string;
  label: string;
  value: string | undefined;
  isDisabled?: boolean;
  hasError?: boolean;
  onChange: (html: string | undefined) => void;
  onBlur: (html: string | undefined) => void;
}

const toValue = (html: string): string | undefined => (EMPTY.test(html.trim()) ? undefined : html);

interface ToolProps {
  label: string;
  icon?: ReactNode;
  text?: string;
  isActive?: boolean;
  isDisabled?: boolean;
  testId?: string;
  onClick: () => void;
}

function Tool({ label: name, icon, text, isActive, isDisabled, testId, onClick }: ToolProps) {
  // a button showing text (H2) has that text in its name too (WCAG 2.5.3)
  const label = text ? `${name} ${text}` : name;
  return (
    <Tooltip title={label}>
      <Button
        type={isActive ? 'primary' : 'text'}
        size="small"
        icon={icon}
        aria-label={label}
        aria-pressed={isActive === undefined ? undefined : isActive}
        disabled={isDisabled}
        data-testid={testId}
        // keep the editor's selection: the click must not move the focus first
        onMouseDown={(event) => event.preventDefault()}
        onClick={onClick}
      >
        {text}
      </Button>
    </Tooltip>
  );
}

function Toolbar({
  editor,
  onImage,
  isDisabled,
}: {
  editor: Editor;
  onImage: () => void;
  isDisabled: boolean;
}) {
  const t = useT();
  const state = useEditorState({
    editor,
    selector: ({ editor: current }) => ({
      isBold: current.isActive('bold'),
      isItalic: current.isActive('italic'),
      isUnderline: current.isActive('underline'),
      isStrike: current.isActive('strike'),
      isH2: current.isActive('heading', { level: 2 }),
      isH3: current.isActive('heading', { level: 3 }),
      isBulletList: current.isActive('bulletList'),
      isOrderedList: current.isActive('orderedList'),
      isQuote: current.isActive('blockquote'),
      fontSize: (current.getAttributes('textStyle').fontSize as string | undefined) ?? undefined,
      canUndo: current.can().undo(),
      canRedo: current.can().redo(),
    }),
  });
  const chain = () => editor.chain().focus();
  const label = (key: string): string => t(`fileUi.editor.${key}`);
  return (
    <div className="richtext-toolbar" role="toolbar" aria-label={label('toolbar')}>
      <Select<string>
        size="small"
        className="richtext-font-size"
        style={{ width: 110, flex: 'none' }}
        aria-label={label('fontSize')}
        placeholder={label('fontSize')}
        disabled={isDisabled}
        value={state.fontSize}
        allowClear
        options={FONT_SIZES.map((size) => ({ value: size, label: size }))}
        onChange={(size) => {
          if (size) chain().setFontSize(size).run();
          else chain().unsetFontSize().run();
        }}
        data-testid="richtext-font-size"
      />
      <Divider type="vertical" />
      <Tool
        label={label('bold')}
        icon={<BoldOutlined />}
        isActive={state.isBold}
        isDisabled={isDisabled}
        onClick={() => chain().toggleBold().run()}
      />
      <Tool
        label={label('italic')}
        icon={<ItalicOutlined />}
        isActive={state.isItalic}
        isDisabled={isDisabled}
        onClick={() => chain().toggleItalic().run()}
      />
      <Tool
        label={label('underline')}
        icon={<UnderlineOutlined />}
        isActive={state.isUnderline}
        isDisabled={isDisabled}
        onClick={() => chain().toggleUnderline().run()}
      />
      <Tool
        label={label('strike')}
        icon={<StrikethroughOutlined />}
        isActive={state.isStrike}
        isDisabled={isDisabled}
        onClick={() => chain().toggleStrike().run()}
      />
      <Divider type="vertical" />
      <Tool
        label={label('heading2')}
        text="H2"
        isActive={state.isH2}
        isDisabled={isDisabled}
        onClick={() => chain().toggleHeading({ level: 2 }).run()}
      />
      <Tool
        label={label('heading3')}
        text="H3"
        isActive={state.isH3}
        isDisabled={isDisabled}
        onClick={() => chain().toggleHeading({ level: 3 }).run()}
      />
      <Tool
        label={label('bulletList')}
        icon={<UnorderedListOutlined />}
        isActive={state.isBulletList}
        isDisabled={isDisabled}
        onClick={() => chain().toggleBulletList().run()}
      />
      <Tool
        label={label('orderedList')}
        icon={<OrderedListOutlined />}
        isActive={state.isOrderedList}
        isDisabled={isDisabled}
        onClick={() => chain().toggleOrderedList().run()}
      />
      <Tool
        label={label('quote')}
        text="“”"
        isActive={state.isQuote}
        isDisabled={isDisabled}
        onClick={() => chain().toggleBlockquote().run()}
      />
      <Tool
        label={label('rule')}
        icon={<LineOutlined />}
        isDisabled={isDisabled}
        onClick={() => chain().setHorizontalRule().run()}
      />
      <Divider type="vertical" />
      <Tool
        label={label('image')}
        icon={<PictureOutlined />}
        isDisabled={isDisabled}
        testId="richtext-image"
        onClick={onImage}
      />
      <Divider type="vertical" />
      <Tool
        label={label('undo')}
        icon={<UndoOutlined />}
        isDisabled={isDisabled || !state.canUndo}
        onClick={() => chain().undo().run()}
      />
      <Tool
        label={label('redo')}
        icon={<RedoOutlined />}
        isDisabled={isDisabled || !state.canRedo}
        onClick={() => chain().redo().run()}
      />
    </div>
  );
}

export default function RichTextEditor({
  id,
  label,
  value,
  isDisabled = false,
  hasError,
  onChange,
  onBlur,
}: RichTextEditorProps) {
  const [isDialogOpen, setDialogOpen] = useState(false);
  const committed = useRef(value ?? '');
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const handlers = useRef({ onChange, onBlur });
  handlers.current = { onChange, onBlur };

  const commit = (html: string): string | undefined => {
    clearTimeout(timer.current);
    const next = toValue(html);
    if ((next ?? '') !== committed.current) {
      committed.current = next ?? '';
      handlers.current.onChange(next);
    }
    return next;
  };

  const editor = useEditor({
    extensions: [
      StarterKit.configure({
        heading: { levels: [2, 3, 4] },
        code: false,
        codeBlock: false,
        link: { openOnClick: false, autolink: true, protocols: ['http', 'https', 'mailto', 'tel'] },
      }),
      TextStyle,
      FontSize,
      Image.configure({ inline: false, allowBase64: false }),
    ],
    content: value ?? '',
    editable: !isDisabled,
    immediatelyRender: true,
    shouldRerenderOnTransaction: false,
    editorProps: {
      attributes: {
        id,
        role: 'textbox',
        'aria-multiline': 'true',
        'aria-label': label,
        class: 'richtext-content',
        'data-testid': 'richtext-content',
      },
    },
    onUpdate: ({ editor: current }) => {
      clearTimeout(timer.current);
      const html = current.getHTML();
      timer.current = setTimeout(() => commit(html), COMMIT_DELAY_MS);
    },
    onBlur: ({ editor: current }) => {
      const next = commit(current.getHTML());
      setTimeout(() => handlers.current.onBlur(next), 0);
    },
  });

  // A value set from outside (reset, the record loaded for 编辑) replaces the content.
  useEffect(() => {
    const next = value ?? '';
    if (editor && next !== committed.current) {
      committed.current = next;
      editor.commands.setContent(next, { emitUpdate: false });
    }
  }, [editor, value]);
  useEffect(() => editor?.setEditable(!isDisabled), [editor, isDisabled]);
  useEffect(() => () => clearTimeout(timer.current), []);

  if (!editor) return null;
  return (
    <div className={`richtext${hasError ? ' richtext-error' : ''}`} data-testid="richtext">
      <Toolbar editor={editor} onImage={() => setDialogOpen(true)} isDisabled={isDisabled} />
      <EditorContent editor={editor} className="richtext-body" style={{ height: EDITOR_HEIGHT }} />
      <RichTextImageDialog
        isOpen={isDialogOpen}
        onClose={() => setDialogOpen(false)}
        onInsert={(pictures) => {
          setDialogOpen(false);
          const chain = editor.chain().focus();
          for (const picture of pictures) chain.setImage({ src: picture.src, alt: picture.alt });
          chain.run();
        }}
      />
    </div>
  );
}
