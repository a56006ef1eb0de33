import { InboxOutlined } from '@ant-design/icons';
import { Upload, type UploadFile } from 'antd';
import { useRef, useState } from 'react';
import { useT } from '../../i18n.js';
import { errorText } from '../../providers/data.js';
import { useFilesApi, type UploadedFile, uploadProgress } from '../../entity/file-api.js';

/**
 * Drag-and-drop (or chosen) files, several at once, each uploaded as it is added with its own
 * progress bar; removing one that is still on its way cancels it (nothing is left on the
 * server). A failed upload stays in the list with the server's reason.
 */
export function FileUploader({ onUploaded }: { onUploaded: (file: UploadedFile) => void }) {
  const t = useT();
  const files = useFilesApi();
  const [list, setList] = useState<UploadFile<UploadedFile>[]>([]);
  const uploads = useRef(new Map<string, AbortController>());
  return (
    <div data-testid="file-uploader">
      <Upload.Dragger
        multiple
        progress={uploadProgress(t('fileUi.progress'))}
        fileList={list}
        onChange={({ fileList }) => setList(fileList as UploadFile<UploadedFile>[])}
        showUploadList={{ showRemoveIcon: true }}
        onRemove={(file) => {
          uploads.current.get(file.uid)?.abort();
          uploads.current.delete(file.uid);
          return true;
        }}
        customRequest={({ file, onProgress, onSuccess, onError }) => {
          const blob = file as File & { uid: string };
          const controller = new AbortController();
          uploads.current.set(blob.uid, controller);
          void (async () => {
            try {
              const uploaded = await files.upload(blob, {
                use: 'attachment',
                signal: controller.signal,
                onProgress: (percent) => onProgress?.({ percent }),
              });
              onSuccess?.(uploaded);
              onUploaded(uploaded);
            } catch (error) {
              if (!controller.signal.aborted) onError?.(new Error(errorText(error)));
            } finally {
              uploads.current.delete(blob.uid);
            }
          })();
        }}
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
