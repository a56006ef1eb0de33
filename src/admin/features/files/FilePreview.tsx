import { Modal, Spin } from 'antd';
import { useEffect, useState } from 'react';
import { useT } from '../../i18n.js';
import { useFilesApi, type UploadedFile } from '../../entity/file-api.js';

/** Whether the back-office can show a file itself: pictures and PDF. */
export function isPreviewable(file: Pick<UploadedFile, 'contentType'>): boolean {
  return /^image\/(jpeg|png|gif|bmp|webp)$/.test(file.contentType) || file.contentType === 'application/pdf';
}

/**
 * A picture or a PDF in a dialog. The bytes are fetched with the caller's token (the download
 * endpoint needs it) and shown from an object URL.
 */
export function FilePreview({ file, onClose }: { file: UploadedFile | undefined; onClose: () => void }) {
  const t = useT();
  const files = useFilesApi();
  const [url, setUrl] = useState<string | undefined>(undefined);
  useEffect(() => {
    if (!file) return;
    let objectUrl: string | undefined;
    let isCurrent = true;
    void files.download(file.id).then(({ blob }) => {
      if (!isCurrent) return;
      // the server's content type, so that the browser shows a PDF as one
      objectUrl = URL.createObjectURL(new Blob([blob], { type: file.contentType }));
      setUrl(objectUrl);
    });
    return () => {
      isCurrent = false;
      setUrl(undefined);
      if (objectUrl) URL.revokeObjectURL(objectUrl);
    };
  }, [file, files]);
  const isPdf = file?.contentType === 'application/pdf';
  return (
    <Modal
      open={file !== undefined}
      title={file ? t('fileUi.page.previewOf', { name: file.originalFilename }) : ''}
      footer={null}
      onCancel={onClose}
      width={isPdf ? 900 : 720}
      destroyOnHidden
    >
      <div className="file-preview" data-testid="file-preview">
        {!url ? (
          <Spin />
        ) : isPdf ? (
          <iframe src={url} title={file?.originalFilename ?? ''} className="file-preview-pdf" />
        ) : (
          <img src={url} alt={file?.originalFilename ?? ''} className="file-preview-image" />
        )}
      </div>
    </Modal>
  );
}
