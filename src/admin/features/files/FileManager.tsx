import { DeleteOutlined, DownloadOutlined, EyeOutlined, ReloadOutlined } from '@ant-design/icons';
import { App, Button, Card, Flex, Input, Popconfirm, Select, Space } from 'antd';
import { useState } from 'react';
import type { Page } from '../../../engine/api-types.js';
import { formatDateTime } from '../../../web/format.js';
import { routeTitle, useT } from '../../i18n.js';
import type { AppRoute } from '../../lib/menus.js';
import { saveFile, useFilesApi, type UploadedFile } from '../../entity/file-api.js';
import { useApiGet, useCanButton } from '../../lib/api.js';
import { PagedTable, useSubmit } from '../../lib/screen-parts.js';
import { FilePreview, isPreviewable } from './FilePreview.js';
import { FileUploader } from './FileUploader.js';
import './files.css';

const PAGE_SIZE = 10;
const TYPE_FILTERS = [
  'jpg',
  'jpeg',
  'png',
  'gif',
  'bmp',
  'pdf',
  'docx',
  'xlsx',
  'pptx',
  'doc',
  'xls',
  'txt',
  'zip',
];

interface Filters {
  originalFilename?: string;
  fileType?: string;
  ownerName?: string;
}

/**
 * 文件上传下载 (docs/product.md §2.3 /file/upload-download): several files dropped or chosen at once, each
 * with its progress and cancel; the list of files (name, size in KB, type, uploader, time) with
 * filters; preview of pictures and PDF, download, delete and batch delete. Buttons follow the
 * menu's buttons (upload, download, delete, view).
 */
export default function FileManager({ route }: { route: AppRoute }) {
  const t = useT();
  const { modal, message } = App.useApp();
  const can = useCanButton(route.code);
  const files = useFilesApi();
  const submit = useSubmit();
  const [page, setPage] = useState(1);
  const [filters, setFilters] = useState<Filters>({});
  const [draft, setDraft] = useState<Filters>({});
  const [checked, setChecked] = useState<number[]>([]);
  const [previewed, setPreviewed] = useState<UploadedFile | undefined>(undefined);
  const read = useApiGet<Page<UploadedFile>>('/api/file/file/query', {
    currentPage: page,
    pageSize: PAGE_SIZE,
    ...filters,
  });
  const label = (key: string): string => t(`fileUi.page.${key}`);

  const remove = (ids: number[]): Promise<void> =>
    submit(() => files.remove(ids), {
      success: t('admin.crud.deleted'),
      after: async () => {
        setChecked((current) => current.filter((id) => !ids.includes(id)));
        await read.refetch();
      },
    });
  const removeChecked = (): void => {
    if (checked.length === 0) {
      void message.warning(t('admin.crud.checkToDelete'));
      return;
    }
    modal.confirm({
      title: t('admin.crud.confirmTitle'),
      content: t('admin.crud.confirmDeleteMany'),
      okText: t('admin.common.confirm'),
      cancelText: t('admin.common.cancel'),
      onOk: () => remove(checked),
    });
  };
  const search = (): void => {
    setFilters(
      Object.fromEntries(
        Object.entries(draft).filter(([, value]) => typeof value === 'string' && value.trim() !== ''),
      ),
    );
    setPage(1);
  };

  return (
    <Card title={routeTitle(route)} className="admin-page" data-testid="page-title">
      {can('upload') ? <FileUploader onUploaded={() => void read.refetch()} /> : null}
      <Flex gap={8} wrap className="admin-screen-toolbar file-filters" role="search">
        <Input
          aria-label={label('name')}
          placeholder={label('name')}
          allowClear
          value={draft.originalFilename ?? ''}
          onChange={(event) => setDraft({ ...draft, originalFilename: event.target.value })}
          onPressEnter={search}
          className="file-filter"
          data-testid="file-filter-name"
        />
        <Select<string>
          aria-label={label('type')}
          placeholder={label('type')}
          allowClear
          value={draft.fileType}
          options={TYPE_FILTERS.map((type) => ({ value: type, label: type }))}
          onChange={(fileType) => setDraft({ ...draft, fileType })}
          className="file-filter"
        />
        <Input
          aria-label={label('owner')}
          placeholder={label('owner')}
          allowClear
          value={draft.ownerName ?? ''}
          onChange={(event) => setDraft({ ...draft, ownerName: event.target.value })}
          onPressEnter={search}
          className="file-filter"
        />
        <Button type="primary" onClick={search} data-testid="file-search">
          {t('admin.crud.search')}
        </Button>
        <Button
          onClick={() => {
            setDraft({});
            setFilters({});
            setPage(1);
          }}
        >
          {t('admin.crud.reset')}
        </Button>
        <Button icon={<ReloadOutlined />} onClick={() => void read.refetch()}>
          {t('admin.tags.refresh')}
        </Button>
        {can('delete') ? (
          <Button danger icon={<DeleteOutlined />} onClick={removeChecked} data-testid="file-batch-delete">
            {label('batchDelete')}
          </Button>
        ) : null}
      </Flex>
      <PagedTable<UploadedFile>
        read={read}
        page={page}
        pageSize={PAGE_SIZE}
        onPage={setPage}
        data-testid="file-list"
        rowSelection={{
          selectedRowKeys: checked,
          onChange: (keys) => setChecked(keys.map(Number)),
          getCheckboxProps: (row) => ({ title: row.originalFilename }),
        }}
        columns={[
          {
            key: 'originalFilename',
            title: label('name'),
            render: (_value, row) => <span data-file={row.originalFilename}>{row.originalFilename}</span>,
          },
          { key: 'size', title: label('size'), align: 'right', render: (_value, row) => row.size.toFixed(2) },
          { key: 'fileType', dataIndex: 'fileType', title: label('type') },
          { key: 'ownerName', dataIndex: 'ownerName', title: label('owner') },
          { key: 'createdAt', title: label('time'), render: (_value, row) => formatDateTime(row.createdAt) },
          {
            key: 'actions',
            title: label('actions'),
            fixed: 'right',
            render: (_value, row) => (
              <Space size={4}>
                {can('view') && isPreviewable(row) ? (
                  <Button
                    size="small"
                    icon={<EyeOutlined />}
                    aria-label={`${label('preview')} ${row.originalFilename}`}
                    onClick={() => setPreviewed(row)}
                    data-testid="file-preview-button"
                  >
                    {label('preview')}
                  </Button>
                ) : null}
                {can('download') ? (
                  <Button
                    size="small"
                    icon={<DownloadOutlined />}
                    aria-label={`${label('download')} ${row.originalFilename}`}
                    onClick={() =>
                      void submit(async () => saveFile(await files.download(row.id)), { success: false })
                    }
                    data-testid="file-download"
                  >
                    {label('download')}
                  </Button>
                ) : null}
                {can('delete') ? (
                  <Popconfirm
                    title={t('admin.crud.confirmDeleteOne')}
                    okText={t('admin.common.confirm')}
                    cancelText={t('admin.common.cancel')}
                    onConfirm={() => remove([row.id])}
                  >
                    <Button
                      size="small"
                      danger
                      icon={<DeleteOutlined />}
                      aria-label={`${t('admin.crud.delete')} ${row.originalFilename}`}
                      data-testid="file-delete"
                    >
                      {t('admin.crud.delete')}
                    </Button>
                  </Popconfirm>
                ) : null}
              </Space>
            ),
          },
        ]}
      />
      <FilePreview file={previewed} onClose={() => setPreviewed(undefined)} />
    </Card>
  );
}
