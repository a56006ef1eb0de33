import { PlusOutlined } from '@ant-design/icons';
import { App, Modal, Upload, type UploadFile } from 'antd';
import { useState } from 'react';
import { useT } from '../i18n.js';
import { isImageName, useFilesApi, uploadProgress } from './file-api.js';
import { useUploadRequests } from './useUploadRequests.js';

/** A picture ready to be inserted: its public address and name. */
export interface InsertedPicture {
  src: string;
  alt: string;
}

interface Props {
  isOpen: boolean;
  onClose: () => void;
  onInsert: (pictures: InsertedPicture[]) => void;
}

/**
 * The editor's image-upload dialog (docs/product.md §2.4): pictures chosen or dropped onto a picture-card
 * list are uploaded at once (use image: jpg, jpeg, gif, png, bmp, else 「请上传图片格式。」);
 * 确定 inserts them, or says 「正在上传，请等待文件上传完毕。」 while one is still on its way;
 * 取消 drops them (and stops what is still uploading).
 */
export function RichTextImageDialog({ isOpen, onClose, onInsert }: Props) {
  const t = useT();
  const { message } = App.useApp();
  const files = useFilesApi();
  const [list, setList] = useState<UploadFile<InsertedPicture>[]>([]);
  const requests = useUploadRequests<InsertedPicture>(
    async ({ file, signal, onProgress }) => {
      const uploaded = await files.upload(file, { use: 'image', signal, onProgress });
      const [link] = await files.links([uploaded.id]);
      return { src: link?.pictureUrl ?? uploaded.url, alt: uploaded.originalFilename };
    },
    { onFailure: (text) => void message.error(text) },
  );

  const reset = (): void => {
    requests.cancelAll();
    setList([]);
  };
  const close = (): void => {
    reset();
    onClose();
  };
  const confirm = (): void => {
    if (list.some((file) => file.status === 'uploading')) {
      void message.warning(t('fileUi.editor.stillUploading'));
      return;
    }
    const pictures = list.flatMap((file) => (file.status === 'done' && file.response ? [file.response] : []));
    reset();
    onInsert(pictures);
  };

  return (
    <Modal
      open={isOpen}
      title={t('fileUi.editor.imageDialog')}
      okText={t('admin.common.confirm')}
      cancelText={t('admin.common.cancel')}
      onOk={confirm}
      onCancel={close}
      destroyOnHidden
      width={640}
    >
      <div data-testid="richtext-image-dialog">
        <Upload<InsertedPicture>
          listType="picture-card"
          multiple
          progress={uploadProgress(t('fileUi.progress'))}
          accept=".jpg,.jpeg,.gif,.png,.bmp"
          fileList={list}
          onChange={({ fileList }) => setList(fileList)}
          beforeUpload={(file) => {
            if (isImageName(file.name)) return true;
            void message.error(t('fileUi.editor.imagesOnly'));
            return Upload.LIST_IGNORE;
          }}
          showUploadList={{ showPreviewIcon: false }}
          customRequest={requests.customRequest}
          onRemove={requests.onRemove}
        >
          {/* the text names antd's focusable upload area (a button inside it would nest controls) */}
          <div className="richtext-image-add">
            <PlusOutlined aria-hidden />
            <div>{t('fileUi.editor.chooseImages')}</div>
          </div>
        </Upload>
      </div>
    </Modal>
  );
}
