import {
  DeleteOutlined,
  DownloadOutlined,
  EditOutlined,
  EyeOutlined,
  FileExcelOutlined,
  FileImageOutlined,
  FileOutlined,
  FilePdfOutlined,
  FilePptOutlined,
  FileTextOutlined,
  FileWordOutlined,
  FileZipOutlined,
  FolderOutlined,
  ShareAltOutlined,
} from '@ant-design/icons';
import { Button, Checkbox, Empty, Space, Spin, Table, Typography } from 'antd';
import { useState, type DragEvent, type ReactNode } from 'react';
import type { NetdiscItemRef } from '../../../engine/api-types.js';
import { formatDateTime } from '../../../web/format.js';
import { useT } from '../../i18n.js';
import { FileThumbnail, isPreviewable } from './FilePreview.js';
import { DRAG_TYPE, formatBytes, itemOfKey } from './netdisc-api.js';

/** A folder or file as the netdisc page shows it, whatever call listed it. */
export interface NetdiscEntry {
  key: string;
  ref: NetdiscItemRef;
  name: string;
  sizeBytes?: number;
  fileType?: string;
  /** A file's content type (what decides its preview and thumbnail). */
  contentType?: string;
  ownerName?: string;
  createdAt: string;
  /** Shared with the caller: open and download only. */
  isReadOnly: boolean;
}

export interface EntryActions {
  onOpen: (entry: NetdiscEntry) => void;
  onDownload: (entry: NetdiscEntry) => void;
  /** A picture, PDF or text file shown in a dialog. */
  onPreview: (entry: NetdiscEntry) => void;
  onRename: (entry: NetdiscEntry) => void;
  onShare: (entry: NetdiscEntry) => void;
  onDelete: (entry: NetdiscEntry) => void;
  /** Items dropped onto a folder (its id; null: the root). */
  onDropInto: (folderId: number | null, items: NetdiscItemRef[]) => void;
}

const ICONS: Record<string, ReactNode> = {
  pdf: <FilePdfOutlined aria-hidden />,
  doc: <FileWordOutlined aria-hidden />,
  docx: <FileWordOutlined aria-hidden />,
  xls: <FileExcelOutlined aria-hidden />,
  xlsx: <FileExcelOutlined aria-hidden />,
  ppt: <FilePptOutlined aria-hidden />,
  pptx: <FilePptOutlined aria-hidden />,
  zip: <FileZipOutlined aria-hidden />,
  txt: <FileTextOutlined aria-hidden />,
  jpg: <FileImageOutlined aria-hidden />,
  jpeg: <FileImageOutlined aria-hidden />,
  png: <FileImageOutlined aria-hidden />,
  gif: <FileImageOutlined aria-hidden />,
  bmp: <FileImageOutlined aria-hidden />,
};

export function entryIcon(entry: Pick<NetdiscEntry, 'ref' | 'fileType'>): ReactNode {
  if (entry.ref.type === 'folder') return <FolderOutlined aria-hidden className="netdisc-folder-icon" />;
  return ICONS[entry.fileType ?? ''] ?? <FileOutlined aria-hidden />;
}

/** Whether the page can show a file itself (pictures, PDF, text). */
export const canPreview = (entry: NetdiscEntry): boolean =>
  entry.ref.type === 'file' &&
  entry.contentType !== undefined &&
  isPreviewable({ contentType: entry.contentType });

/** A picture's thumbnail, or the entry's icon (folders, other files, while the picture loads). */
function EntryVisual({ entry, className }: { entry: NetdiscEntry; className: string }) {
  if (entry.ref.type === 'folder' || entry.contentType === undefined) return <>{entryIcon(entry)}</>;
  return (
    <FileThumbnail
      file={{ id: entry.ref.id, contentType: entry.contentType, originalFilename: entry.name }}
      sizeBytes={entry.sizeBytes ?? 0}
      fallback={entryIcon(entry)}
      className={className}
    />
  );
}

/** The items a drag carries: the checked ones when the dragged one is checked, else itself. */
function startDrag(event: DragEvent, entry: NetdiscEntry, checked: readonly string[]): void {
  const keys = checked.includes(entry.key) ? checked : [entry.key];
  event.dataTransfer.setData(DRAG_TYPE, keys.join(','));
  event.dataTransfer.effectAllowed = 'move';
}

/** What a drop onto a folder carries (not the folder itself), or undefined for another drag. */
export function droppedItems(event: DragEvent, folderId: number | null): NetdiscItemRef[] | undefined {
  const data = event.dataTransfer.getData(DRAG_TYPE);
  if (!data) return undefined;
  return data
    .split(',')
    .flatMap((key) => itemOfKey(key) ?? [])
    .filter((item) => !(item.type === 'folder' && item.id === folderId));
}

/** Drop-target handlers for a folder (a row, a card, a tree node, a breadcrumb step). */
export function useDropTarget(onDropInto: EntryActions['onDropInto']): (folderId: number | null) => {
  onDragOver: (event: DragEvent) => void;
  onDragLeave: () => void;
  onDrop: (event: DragEvent) => void;
  'data-drop-over'?: boolean;
} {
  const [over, setOver] = useState<number | null | undefined>(undefined);
  return (folderId) => ({
    onDragOver: (event) => {
      if (!event.dataTransfer.types.includes(DRAG_TYPE)) return;
      event.preventDefault();
      event.dataTransfer.dropEffect = 'move';
      setOver(folderId);
    },
    onDragLeave: () => setOver(undefined),
    onDrop: (event) => {
      setOver(undefined);
      const items = droppedItems(event, folderId);
      if (!items) return;
      event.preventDefault();
      if (items.length > 0) onDropInto(folderId, items);
    },
    ...(over === folderId ? { 'data-drop-over': true } : {}),
  });
}

function RowActions({ entry, actions }: { entry: NetdiscEntry; actions: EntryActions }) {
  const t = useT();
  const label = (key: string): string => `${t(`netdiscUi.${key}`)} ${entry.name}`;
  return (
    <Space size={4} wrap>
      {canPreview(entry) ? (
        <Button
          size="small"
          icon={<EyeOutlined />}
          aria-label={label('preview')}
          onClick={() => actions.onPreview(entry)}
          data-testid="netdisc-preview"
        />
      ) : null}
      {entry.ref.type === 'file' ? (
        <Button
          size="small"
          icon={<DownloadOutlined />}
          aria-label={label('download')}
          onClick={() => actions.onDownload(entry)}
          data-testid="netdisc-download"
        />
      ) : null}
      {entry.isReadOnly ? null : (
        <>
          <Button
            size="small"
            icon={<EditOutlined />}
            aria-label={label('rename')}
            onClick={() => actions.onRename(entry)}
            data-testid="netdisc-rename"
          />
          <Button
            size="small"
            icon={<ShareAltOutlined />}
            aria-label={label('share')}
            onClick={() => actions.onShare(entry)}
            data-testid="netdisc-share"
          />
          <Button
            size="small"
            danger
            icon={<DeleteOutlined />}
            aria-label={label('delete')}
            onClick={() => actions.onDelete(entry)}
            data-testid="netdisc-delete"
          />
        </>
      )}
    </Space>
  );
}

/** The name of an entry: a folder opens, a picture, PDF or text shows, another file downloads. */
function EntryName({ entry, actions }: { entry: NetdiscEntry; actions: EntryActions }) {
  const t = useT();
  const isFolder = entry.ref.type === 'folder';
  const isShown = canPreview(entry);
  return (
    <Typography.Link
      onClick={() =>
        isFolder ? actions.onOpen(entry) : isShown ? actions.onPreview(entry) : actions.onDownload(entry)
      }
      title={t(isFolder ? 'netdiscUi.open' : isShown ? 'netdiscUi.preview' : 'netdiscUi.download')}
      data-netdisc-entry={entry.name}
    >
      {entry.name}
    </Typography.Link>
  );
}

interface ViewProps {
  entries: NetdiscEntry[];
  isLoading: boolean;
  checked: string[];
  onCheck: (keys: string[]) => void;
  actions: EntryActions;
}

/** 列表: folders then files with size, type, owner and time; rows drag onto folders. */
export function NetdiscList({ entries, isLoading, checked, onCheck, actions }: ViewProps) {
  const t = useT();
  const dropTarget = useDropTarget(actions.onDropInto);
  return (
    <Table<NetdiscEntry>
      size="middle"
      rowKey="key"
      loading={isLoading}
      dataSource={entries}
      pagination={entries.length > 50 ? { pageSize: 50, showSizeChanger: false } : false}
      scroll={{ x: 'max-content' }}
      data-testid="netdisc-list"
      locale={{ emptyText: <Empty description={t('netdiscUi.empty')} /> }}
      rowSelection={{
        selectedRowKeys: checked,
        onChange: (keys) => onCheck(keys.map(String)),
        getCheckboxProps: (entry) => ({ title: entry.name }),
      }}
      onRow={(entry) => ({
        draggable: !entry.isReadOnly,
        onDragStart: (event) => startDrag(event, entry, checked),
        ...(entry.ref.type === 'folder' && !entry.isReadOnly ? dropTarget(entry.ref.id) : {}),
        'data-netdisc-row': entry.name,
      })}
      columns={[
        {
          key: 'name',
          title: t('netdiscUi.name'),
          render: (_value, entry) => (
            <Space>
              <EntryVisual entry={entry} className="netdisc-thumb" />
              <EntryName entry={entry} actions={actions} />
            </Space>
          ),
        },
        {
          key: 'size',
          title: t('netdiscUi.size'),
          align: 'right',
          render: (_value, entry) => (entry.sizeBytes === undefined ? '' : formatBytes(entry.sizeBytes)),
        },
        { key: 'fileType', title: t('netdiscUi.type'), render: (_value, entry) => entry.fileType ?? '' },
        { key: 'ownerName', title: t('netdiscUi.owner'), render: (_value, entry) => entry.ownerName ?? '' },
        {
          key: 'createdAt',
          title: t('netdiscUi.time'),
          render: (_value, entry) => formatDateTime(entry.createdAt),
        },
        {
          key: 'actions',
          title: t('netdiscUi.actions'),
          render: (_value, entry) => <RowActions entry={entry} actions={actions} />,
        },
      ]}
    />
  );
}

/** 网格: a card per folder or file; cards drag onto folder cards. */
export function NetdiscGrid({ entries, isLoading, checked, onCheck, actions }: ViewProps) {
  const t = useT();
  const dropTarget = useDropTarget(actions.onDropInto);
  if (isLoading) return <Spin className="netdisc-spin" />;
  if (entries.length === 0) return <Empty description={t('netdiscUi.empty')} />;
  const toggle = (key: string, isChecked: boolean): void =>
    onCheck(isChecked ? [...checked, key] : checked.filter((other) => other !== key));
  return (
    <ul className="netdisc-grid" data-testid="netdisc-grid">
      {entries.map((entry) => (
        <li
          key={entry.key}
          className={checked.includes(entry.key) ? 'netdisc-card is-checked' : 'netdisc-card'}
          draggable={!entry.isReadOnly}
          onDragStart={(event) => startDrag(event, entry, checked)}
          onDoubleClick={() =>
            entry.ref.type === 'folder'
              ? actions.onOpen(entry)
              : canPreview(entry)
                ? actions.onPreview(entry)
                : actions.onDownload(entry)
          }
          {...(entry.ref.type === 'folder' && !entry.isReadOnly ? dropTarget(entry.ref.id) : {})}
          data-netdisc-card={entry.name}
        >
          <Checkbox
            className="netdisc-card-check"
            checked={checked.includes(entry.key)}
            onChange={(event) => toggle(entry.key, event.target.checked)}
            aria-label={entry.name}
          />
          <div className="netdisc-card-icon">
            <EntryVisual entry={entry} className="netdisc-card-thumb" />
          </div>
          <div className="netdisc-card-name">
            <EntryName entry={entry} actions={actions} />
          </div>
          <div className="netdisc-card-meta">
            {entry.sizeBytes === undefined ? formatDateTime(entry.createdAt) : formatBytes(entry.sizeBytes)}
          </div>
          <RowActions entry={entry} actions={actions} />
        </li>
      ))}
    </ul>
  );
}
