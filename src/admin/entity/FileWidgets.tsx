import { PlusOutlined, UploadOutlined } from '@ant-design/icons';
import type { WidgetProps } from '@rjsf/utils';
import { App, Button, Image, Input, Upload, type UploadFile } from 'antd';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useT } from '../i18n.js';
import { errorText } from '../providers/data.js';
import { isImageName, saveFile, useFilesApi, type FileLink, uploadProgress } from './file-api.js';
import { useUploadRequests } from './useUploadRequests.js';

/**
 * File fields of the generated form (x-ui widget upload / image, src/engine/file-fields.ts):
 * attachments as a list of names, pictures as thumbnails. Files upload as soon as they are
 * chosen, with their progress; the field keeps their ids (one, or a list for an array field).
 * An image field of type string keeps the picture's public address instead.
 */

interface Stored {
  id: number;
  pictureUrl?: string;
}

const isMultiple = (props: WidgetProps): boolean => props.schema.type === 'array';

function idsOf(value: unknown): number[] {
  const items = Array.isArray(value) ? (value as unknown[]) : [value];
  return items.filter((item): item is number => typeof item === 'number');
}

const entryOf = (link: FileLink): UploadFile<Stored> => ({
  uid: `file-${link.id}`,
  name: link.originalFilename,
  status: 'done',
  ...(link.pictureUrl ? { thumbUrl: link.pictureUrl, url: link.pictureUrl } : {}),
  response: { id: link.id, ...(link.pictureUrl ? { pictureUrl: link.pictureUrl } : {}) },
});

const doneIds = (list: UploadFile<Stored>[]): number[] =>
  list.flatMap((file) => (file.status === 'done' && file.response ? [file.response.id] : []));

function FileIdsWidget({ props, use }: { props: WidgetProps; use: 'image' | 'attachment' }) {
  const t = useT();
  const { message } = App.useApp();
  const files = useFilesApi();
  const multiple = isMultiple(props);
  const maxCount = multiple
    ? typeof props.schema.maxItems === 'number'
      ? props.schema.maxItems
      : undefined
    : 1;
  const ids = idsOf(props.value);
  const idsKey = ids.join(',');
  const [list, setList] = useState<UploadFile<Stored>[]>([]);
  const listRef = useRef(list);
  listRef.current = list;
  const isDisabled = props.disabled || props.readonly;

  // Stored ids (a record opened for 编辑, a reset) are shown by name and thumbnail.
  useEffect(() => {
    const wanted = idsKey === '' ? [] : idsKey.split(',').map(Number);
    if (doneIds(listRef.current).join(',') === idsKey) return;
    let isCurrent = true;
    void files.links(wanted).then(
      (links) => isCurrent && setList(links.map(entryOf)),
      () => isCurrent && setList([]),
    );
    return () => {
      isCurrent = false;
    };
  }, [idsKey, files]);

  const update = (next: UploadFile<Stored>[]): void => {
    setList(next);
    const nextIds = doneIds(next);
    if (nextIds.join(',') === idsKey) return;
    const value = multiple ? nextIds : nextIds[0];
    props.onChange(value);
    setTimeout(() => props.onBlur(props.id, value), 0);
  };

  const isPicture = use === 'image';
  const requests = useUploadRequests<Stored>(
    async ({ file, signal, onProgress }) => {
      const uploaded = await files.upload(file, { use, signal, onProgress });
      const [link] = isPicture ? await files.links([uploaded.id]) : [];
      return { id: uploaded.id, ...(link?.pictureUrl ? { pictureUrl: link.pictureUrl } : {}) };
    },
    { onFailure: (text) => void message.error(text) },
  );
  return (
    <div id={props.id} className="entity-form-files" data-testid={`file-field-${props.name}`}>
      <Upload<Stored>
        listType={isPicture ? 'picture-card' : 'text'}
        multiple={multiple}
        progress={uploadProgress(t('fileUi.progress'))}
        maxCount={maxCount}
        disabled={isDisabled}
        accept={isPicture ? '.jpg,.jpeg,.gif,.png,.bmp' : undefined}
        fileList={list}
        onChange={({ fileList }) => update(fileList)}
        beforeUpload={(file) => {
          if (!isPicture || isImageName(file.name)) return true;
          void message.error(t('fileUi.editor.imagesOnly'));
          return Upload.LIST_IGNORE;
        }}
        onPreview={(file) => {
          const id = file.response?.id;
          if (!isPicture && id !== undefined) void files.download(id).then(saveFile);
        }}
        showUploadList={{ showPreviewIcon: isPicture, showDownloadIcon: false }}
        customRequest={requests.customRequest}
        onRemove={requests.onRemove}
      >
        {isDisabled || (maxCount !== undefined && list.length >= maxCount) ? null : isPicture ? (
          <div className="entity-form-files-add">
            <PlusOutlined aria-hidden />
            <div>{t('fileUi.field.addImage', { field: props.label })}</div>
          </div>
        ) : (
          <Button icon={<UploadOutlined />}>{t('fileUi.field.addFile', { field: props.label })}</Button>
        )}
      </Upload>
    </div>
  );
}

/** An image field of type string: the picture's public address, typed or uploaded. */
function PictureUrlWidget(props: WidgetProps) {
  const t = useT();
  const { message } = App.useApp();
  const files = useFilesApi();
  const url = typeof props.value === 'string' ? props.value : '';
  const [percent, setPercent] = useState<number | undefined>(undefined);
  const set = (value: string | undefined): void => {
    props.onChange(value);
    setTimeout(() => props.onBlur(props.id, value), 0);
  };
  return (
    <div className="entity-form-image" data-testid={`file-field-${props.name}`}>
      <Input
        id={props.id}
        value={url}
        disabled={props.disabled || props.readonly}
        allowClear
        onChange={(event) => set(event.target.value === '' ? undefined : event.target.value)}
      />
      <Upload
        accept=".jpg,.jpeg,.gif,.png,.bmp"
        showUploadList={false}
        disabled={props.disabled || props.readonly || percent !== undefined}
        beforeUpload={(file) => {
          if (isImageName(file.name)) return true;
          void message.error(t('fileUi.editor.imagesOnly'));
          return Upload.LIST_IGNORE;
        }}
        customRequest={({ file }) => {
          void (async () => {
            setPercent(0);
            try {
              const uploaded = await files.upload(file as File, { use: 'image', onProgress: setPercent });
              const [link] = await files.links([uploaded.id]);
              set(link?.pictureUrl ?? uploaded.url);
            } catch (error) {
              void message.error(errorText(error));
            } finally {
              setPercent(undefined);
            }
          })();
        }}
      >
        <Button icon={<UploadOutlined />} loading={percent !== undefined}>
          {percent === undefined ? t('fileUi.field.uploadImage') : `${percent}%`}
        </Button>
      </Upload>
      {url ? (
        <Image src={url} width={64} height={64} alt={props.label} style={{ objectFit: 'contain' }} />
      ) : null}
    </div>
  );
}

/** x-ui widget image: pictures with thumbnails (file ids), or a picture's address (a string field). */
export function ImageWidget(props: WidgetProps) {
  return props.schema.type === 'string' ? (
    <PictureUrlWidget {...props} />
  ) : (
    <FileIdsWidget props={props} use="image" />
  );
}

/** x-ui widget upload: attachments (file ids). */
export function UploadWidget(props: WidgetProps) {
  return <FileIdsWidget props={props} use="attachment" />;
}

/** The names (and picture addresses) of stored file ids, for lists. */
export function useFileLinks(ids: number[]): Map<number, FileLink> {
  const files = useFilesApi();
  const key = [...new Set(ids)].sort((a, b) => a - b).join(',');
  const [links, setLinks] = useState<Map<number, FileLink>>(new Map());
  useEffect(() => {
    if (key === '') return;
    let isCurrent = true;
    void files.links(key.split(',').map(Number)).then(
      (found) => isCurrent && setLinks(new Map(found.map((link) => [link.id, link]))),
      () => undefined,
    );
    return () => {
      isCurrent = false;
    };
  }, [key, files]);
  return useMemo(() => links, [links]);
}
