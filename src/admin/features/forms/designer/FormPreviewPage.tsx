import { Modal, Result, Spin } from 'antd';
import { lazy, Suspense, useEffect, useState } from 'react';
import type { EntitySchema } from '../../../../engine/types.js';
import { useT } from '../../../i18n.js';

const DesignedForm = lazy(() => import('./DesignedForm.js'));

/** The message a parent window posts: the form to show (again, on every refresh). */
export const PREVIEW_MESSAGE = 'ecobid.formPreview';
/** What this page posts to its parent once it listens. */
export const PREVIEW_READY = 'ecobid.formPreview.ready';

interface PreviewMessage {
  type: typeof PREVIEW_MESSAGE;
  schema: EntitySchema;
}

function isPreviewMessage(data: unknown): data is PreviewMessage {
  const message = data as Partial<PreviewMessage> | null;
  return message?.type === PREVIEW_MESSAGE && typeof message.schema === 'object' && message.schema !== null;
}

/**
 * Preview mode (docs/product.md §2.4): a page that listens for its parent window (an opener or the page
 * framing it, of this origin only) and renders the posted form in a dialog; each new message
 * refreshes it.
 */
export default function FormPreviewPage() {
  const t = useT();
  const [schema, setSchema] = useState<EntitySchema | undefined>(undefined);
  const [isOpen, setOpen] = useState(true);
  useEffect(() => {
    const onMessage = (event: MessageEvent): void => {
      if (event.origin !== window.location.origin || !isPreviewMessage(event.data)) return;
      setSchema(event.data.schema);
      setOpen(true);
    };
    window.addEventListener('message', onMessage);
    const parent = window.opener ?? (window.parent !== window ? window.parent : undefined);
    (parent as Window | undefined)?.postMessage({ type: PREVIEW_READY }, window.location.origin);
    return () => window.removeEventListener('message', onMessage);
  }, []);
  if (!schema)
    return <Result icon={<Spin />} title={t('formDesigner.preview.waiting')} data-testid="preview-waiting" />;
  return (
    <Modal
      open={isOpen}
      title={schema.title}
      footer={null}
      width={900}
      onCancel={() => setOpen(false)}
      destroyOnHidden
    >
      <Suspense fallback={<Spin />}>
        <DesignedForm key={JSON.stringify(schema)} schema={schema} />
      </Suspense>
    </Modal>
  );
}
