import { InboxOutlined, UploadOutlined, UserOutlined } from '@ant-design/icons';
import { App, Avatar, Button, Space, Typography, Upload, type UploadFile } from 'antd';
import { useEffect, useState } from 'react';
import { saveFile, isImageName, uploadProgress, useFilesApi } from '../../../entity/file-api.js';
import { useUploadRequests } from '../../../entity/useUploadRequests.js';
import { useT } from '../../../i18n.js';
import type { AppRoute } from '../../../lib/menus.js';
import { errorText } from '../../../providers/data.js';
import { DemoCard } from './DemoCard.js';

interface Stored {
  id: number;
}

/** Upload: files dragged or chosen go to the file service at once, with progress and cancel. */
export function UploadDemo({ route }: { route: AppRoute }) {
  const t = useT();
  const { message } = App.useApp();
  const files = useFilesApi();
  const [list, setList] = useState<UploadFile<Stored>[]>([]);
  const requests = useUploadRequests<Stored>(
    async ({ file, signal, onProgress }) => {
      const uploaded = await files.upload(file, { use: 'attachment', signal, onProgress });
      return { id: uploaded.id };
    },
    { onFailure: (text) => void message.error(text) },
  );
  const done = list.filter((file) => file.status === 'done');
  return (
    <DemoCard route={route} intro={t('demoComponents.upload.intro')}>
      <Upload.Dragger
        multiple
        fileList={list}
        progress={uploadProgress(t('fileUi.progress'))}
        onChange={({ fileList }) => setList(fileList)}
        customRequest={requests.customRequest}
        onRemove={requests.onRemove}
        onPreview={(file) => {
          const id = (file as UploadFile<Stored>).response?.id;
          if (id !== undefined) void files.download(id).then(saveFile);
        }}
        data-testid="demo-upload"
      >
        <p className="ant-upload-drag-icon">
          <InboxOutlined aria-hidden />
        </p>
        <p className="ant-upload-text">{t('demoComponents.upload.drop')}</p>
        <p className="ant-upload-hint">{t('demoComponents.upload.hint')}</p>
      </Upload.Dragger>
      <Typography.Paragraph className="demo-result" data-testid="demo-upload-count">
        {t('demoComponents.upload.stored', { count: done.length })}
      </Typography.Paragraph>
    </DemoCard>
  );
}

const AVATAR_SIZE = 200;

/** The middle square of a picture, scaled to AVATAR_SIZE, as a PNG. */
async function squareOf(file: File): Promise<Blob> {
  const bitmap = await createImageBitmap(file);
  const side = Math.min(bitmap.width, bitmap.height);
  const canvas = document.createElement('canvas');
  canvas.width = AVATAR_SIZE;
  canvas.height = AVATAR_SIZE;
  const context = canvas.getContext('2d');
  if (!context) throw new Error('canvas');
  context.drawImage(
    bitmap,
    (bitmap.width - side) / 2,
    (bitmap.height - side) / 2,
    side,
    side,
    0,
    0,
    AVATAR_SIZE,
    AVATAR_SIZE,
  );
  bitmap.close();
  return new Promise((resolve, reject) =>
    canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new Error('toBlob'))), 'image/png'),
  );
}

/**
 * Avatar upload: a picture is cut to its middle square in the browser (a preview first), then
 * uploaded as an image; the stored picture's public address is shown as the avatar.
 */
export function AvatarUploadDemo({ route }: { route: AppRoute }) {
  const t = useT();
  const { message } = App.useApp();
  const files = useFilesApi();
  const [preview, setPreview] = useState<{ blob: Blob; url: string } | undefined>();
  const [stored, setStored] = useState<string | undefined>();
  const [percent, setPercent] = useState<number | undefined>();
  useEffect(() => () => preview && URL.revokeObjectURL(preview.url), [preview]);

  const upload = async (): Promise<void> => {
    if (!preview) return;
    setPercent(0);
    try {
      const uploaded = await files.upload(Object.assign(preview.blob, { name: 'avatar.png' }), {
        use: 'image',
        onProgress: setPercent,
      });
      const [link] = await files.links([uploaded.id]);
      setStored(link?.pictureUrl ?? uploaded.url);
      // the stored picture shows from now on, not the preview
      setPreview(undefined);
      void message.success(t('demoComponents.avatar.saved'));
    } catch (error) {
      void message.error(errorText(error));
    } finally {
      setPercent(undefined);
    }
  };

  return (
    <DemoCard route={route} intro={t('demoComponents.avatar.intro')}>
      <Space size="large" align="start" wrap>
        <Space direction="vertical" align="center">
          <Avatar
            size={120}
            src={preview?.url ?? stored}
            icon={<UserOutlined />}
            alt={t('demoComponents.avatar.preview')}
            data-testid="demo-avatar"
          />
          <Typography.Text type="secondary">
            {preview ? t('demoComponents.avatar.preview') : t('demoComponents.avatar.current')}
          </Typography.Text>
        </Space>
        <Space direction="vertical">
          <Upload
            accept=".jpg,.jpeg,.gif,.png,.bmp"
            showUploadList={false}
            beforeUpload={(file) => {
              if (!isImageName(file.name)) {
                void message.error(t('fileUi.editor.imagesOnly'));
                return Upload.LIST_IGNORE;
              }
              void squareOf(file).then(
                (blob) => setPreview({ blob, url: URL.createObjectURL(blob) }),
                () => void message.error(t('demoComponents.avatar.unreadable')),
              );
              return false;
            }}
          >
            <Button icon={<UploadOutlined />}>{t('demoComponents.avatar.choose')}</Button>
          </Upload>
          <Button
            type="primary"
            disabled={!preview}
            loading={percent !== undefined}
            onClick={() => void upload()}
            data-testid="demo-avatar-save"
          >
            {percent === undefined ? t('demoComponents.avatar.save') : `${percent}%`}
          </Button>
          {stored && (
            <Typography.Text copyable={{ text: stored }} data-testid="demo-avatar-url">
              {stored}
            </Typography.Text>
          )}
        </Space>
      </Space>
    </DemoCard>
  );
}
