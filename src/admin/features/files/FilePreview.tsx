import { Modal, Spin, Typography } from 'antd';
import { useEffect, useState, type ReactNode } from 'react';
import { useT } from '../../i18n.js';
import { useFilesApi, type UploadedFile } from '../../entity/file-api.js';

/** What a preview needs of a file (an upload's record, a netdisc entry). */
export type PreviewedFile = Pick<UploadedFile, 'id' | 'contentType' | 'originalFilename'>;

const IMAGE = /^image\/(jpeg|png|gif|bmp|webp)$/;
const TEXT = /^(text\/(plain|csv|markdown)|application\/json)(;|$)/;

/** Text past this many bytes is cut (the rest is for downloading). */
const TEXT_PREVIEW_BYTES = 256 * 1024;

/** Pictures are shown as thumbnails up to this size (a thumbnail reads the whole picture). */
const THUMBNAIL_MAX_BYTES = 5 * 1024 * 1024;

export const isImage = (file: Pick<UploadedFile, 'contentType'>): boolean => IMAGE.test(file.contentType);

/** Whether the back-office can show a file itself: pictures, PDF and text. */
export function isPreviewable(file: Pick<UploadedFile, 'contentType'>): boolean {
  return isImage(file) || file.contentType === 'application/pdf' || TEXT.test(file.contentType);
}

/** An object URL of a file's bytes, read with the caller's token; revoked when no longer shown. */
function useObjectUrl(file: PreviewedFile | undefined): { url?: string; blob?: Blob } {
  const files = useFilesApi();
  const [shown, setShown] = useState<{ url?: string; blob?: Blob }>({});
  // By id and type: callers may build the object anew on each render.
  const id = file?.id;
  const contentType = file?.contentType;
  useEffect(() => {
    if (id === undefined || contentType === undefined) return;
    let objectUrl: string | undefined;
    let isCurrent = true;
    void files
      .download(id)
      .then(({ blob }) => {
        if (!isCurrent) return;
        // the server's content type, so that the browser shows a PDF as one
        const typed = new Blob([blob], { type: contentType });
        objectUrl = URL.createObjectURL(typed);
        setShown({ url: objectUrl, blob: typed });
      })
      .catch(() => undefined);
    return () => {
      isCurrent = false;
      setShown({});
      if (objectUrl) URL.revokeObjectURL(objectUrl);
    };
  }, [id, contentType, files]);
  return shown;
}

function TextPreview({ blob }: { blob: Blob }) {
  const t = useT();
  const [text, setText] = useState<string | undefined>(undefined);
  useEffect(() => {
    let isCurrent = true;
    void blob
      .slice(0, TEXT_PREVIEW_BYTES)
      .text()
      .then((read) => {
        if (isCurrent) setText(read);
      });
    return () => {
      isCurrent = false;
    };
  }, [blob]);
  if (text === undefined) return <Spin />;
  return (
    <div className="file-preview-text-box">
      <pre className="file-preview-text" data-testid="file-preview-text">
        {text}
      </pre>
      {blob.size > TEXT_PREVIEW_BYTES ? (
        <Typography.Text type="secondary">
          {t('fileUi.previewTruncated', { size: `${TEXT_PREVIEW_BYTES / 1024} KB` })}
        </Typography.Text>
      ) : null}
    </div>
  );
}

/**
 * A picture, a PDF or a text file in a dialog. The bytes are fetched with the caller's token (the
 * download endpoint needs it) and shown from an object URL.
 */
export function FilePreview({ file, onClose }: { file: PreviewedFile | undefined; onClose: () => void }) {
  const t = useT();
  const { url, blob } = useObjectUrl(file);
  const isPdf = file?.contentType === 'application/pdf';
  const isText = file !== undefined && TEXT.test(file.contentType);
  return (
    <Modal
      open={file !== undefined}
      title={file ? t('fileUi.page.previewOf', { name: file.originalFilename }) : ''}
      footer={null}
      onCancel={onClose}
      width={isPdf || isText ? 900 : 720}
      destroyOnHidden
    >
      <div className="file-preview" data-testid="file-preview">
        {!url || !blob ? (
          <Spin aria-label={t('fileUi.previewLoading')} />
        ) : isText ? (
          <TextPreview blob={blob} />
        ) : isPdf ? (
          <iframe src={url} title={file?.originalFilename ?? ''} className="file-preview-pdf" />
        ) : (
          <img src={url} alt={file?.originalFilename ?? ''} className="file-preview-image" />
        )}
      </div>
    </Modal>
  );
}

/**
 * A picture's thumbnail (read with the caller's token), or `fallback` for anything else, a picture
 * too large to read for a thumbnail, or while it loads.
 */
export function FileThumbnail({
  file,
  sizeBytes,
  fallback,
  className,
}: {
  file: PreviewedFile;
  sizeBytes: number;
  fallback: ReactNode;
  className: string;
}) {
  const wanted = isImage(file) && sizeBytes <= THUMBNAIL_MAX_BYTES ? file : undefined;
  const { url } = useObjectUrl(wanted);
  if (!url) return <>{fallback}</>;
  return <img src={url} alt="" className={className} data-thumbnail={file.originalFilename} />;
}
