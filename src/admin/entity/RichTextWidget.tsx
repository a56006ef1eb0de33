import type { WidgetProps } from '@rjsf/utils';
import { Skeleton } from 'antd';
import { lazy, Suspense } from 'react';
import { EDITOR_HEIGHT } from './richtext-defaults.js';

/** The editor is its own chunk: a form without rich text never loads TipTap. */
const RichTextEditor = lazy(() => import('./RichTextEditor.js'));

/** x-ui widget richtext: HTML edited in the rich-text editor (RichTextEditor.tsx). */
export function RichTextWidget(props: WidgetProps) {
  const value = typeof props.value === 'string' ? props.value : undefined;
  return (
    <Suspense fallback={<Skeleton active paragraph={{ rows: 8 }} style={{ minHeight: EDITOR_HEIGHT }} />}>
      <RichTextEditor
        id={props.id}
        label={props.label}
        value={value}
        isDisabled={props.disabled || props.readonly}
        hasError={(props.rawErrors?.length ?? 0) > 0}
        onChange={(html) => props.onChange(html)}
        onBlur={(html) => props.onBlur(props.id, html)}
      />
    </Suspense>
  );
}
