import { InboxOutlined } from '@ant-design/icons';
import { App, Upload, type UploadFile } from 'antd';
import { useCallback } from 'react';
import { useState } from 'react';
import { useT } from '../../i18n.js';
import { useFilesApi, type UploadedFile, uploadProgress } from '../../entity/file-api.js';
import { useUploadRequests } from '../../entity/useUploadRequests.js';

/**
 * Tells about a failed upload in a notification that stays until closed: which file, and the
 * server's reason in the user's language (too large, a type not accepted, the netdisc quota).
 * The list alone only turned the name red with a tooltip (issue 39 point 7).
 */
export function useUploadFailureNotice(): (name: string, reason: string) => void {
  const t = useT();
  const { notification } = App.useApp();
  return useCallback(
    (name, reason) => {
      notification.error({
        key: `upload-failed-${name}`,
        message: t('fileUi.uploadFailed', { name }),
        description: reason,
        duration: 0,
        className: 'upload-failed-notice',
      });
    },
    [notification, t],
  );
}

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
  const notifyFailure = useUploadFailureNotice();
  const requests = useUploadRequests<UploadedFile>(
    ({ file, signal, onProgress }) =>
      files.upload(file, {
        use: 'attachment',
        signal,
        onProgress,
        ...(folderId === undefined ? {} : { netdiscFolderId: folderId }),
      }),
    { onSuccess: onUploaded, onFailure: (reason, file) => notifyFailure(file.name, reason) },
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
