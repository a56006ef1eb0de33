import { InboxOutlined } from '@ant-design/icons';
import { Upload, type UploadFile } from 'antd';
import { useState } from 'react';
import { useT } from '../../i18n.js';
import { useFilesApi, type UploadedFile, uploadProgress } from '../../entity/file-api.js';
import { useUploadRequests } from '../../entity/useUploadRequests.js';

/**
 * Drag-and-drop (or chosen) files, several at once, each uploaded as it is added with its own
 * progress bar; removing one that is still on its way cancels it (nothing is left on the
 * server). A failed upload stays in the list with the server's reason.
 */
export function FileUploader({
  onUploaded,
  folderId,
}: {
  onUploaded: (file: UploadedFile) => void;
  /** Into the caller's netdisc: this folder, or its root when null. */
  folderId?: number | null;
}) {
  const t = useT();
  const files = useFilesApi();
  const [list, setList] = useState<UploadFile<UploadedFile>[]>([]);
  const requests = useUploadRequests<UploadedFile>(
    ({ file, signal, onProgress }) =>
      files.upload(file, {
        use: 'attachment',
        signal,
        onProgress,
        ...(folderId === undefined ? {} : { netdiscFolderId: folderId }),
      }),
    { onSuccess: onUploaded },
  );
  return (
    <div data-testid="file-uploader">
      <Upload.Dragger
        multiple
        progress={uploadProgress(t('fileUi.progress'))}
        fileList={list}
        onChange={({ fileList }) => setList(fileList as UploadFile<UploadedFile>[])}
        showUploadList={{ showRemoveIcon: true }}
        onRemove={requests.onRemove}
        customRequest={requests.customRequest}
      >
        <p className="ant-upload-drag-icon">
          <InboxOutlined aria-hidden />
        </p>
        <p className="ant-upload-text">{t('fileUi.page.drop')}</p>
        <p className="ant-upload-hint">{t('fileUi.page.dropHint')}</p>
      </Upload.Dragger>
    </div>
  );
}
