import {
  AppstoreOutlined,
  BarsOutlined,
  CloudOutlined,
  DeleteOutlined,
  DragOutlined,
  FolderAddOutlined,
  ReloadOutlined,
  RestOutlined,
  TeamOutlined,
  UploadOutlined,
} from '@ant-design/icons';
import {
  App,
  Breadcrumb,
  Button,
  Card,
  Flex,
  Input,
  Modal,
  Progress,
  Segmented,
  Tree,
  Typography,
} from 'antd';
import { useMemo, useState, type DragEvent } from 'react';
import type {
  FolderListing,
  FolderNode,
  NetdiscFile,
  NetdiscFolder,
  NetdiscItemRef,
  QuotaUsage,
  SearchResult,
  SharedWithMe,
} from '../../../engine/api-types.js';
import { routeTitle, useT } from '../../i18n.js';
import type { AppRoute } from '../../lib/menus.js';
import { saveFile, useFilesApi } from '../../entity/file-api.js';
import { useApiGet, withQuery } from '../../lib/api.js';
import { useSubmit } from '../../lib/screen-parts.js';
import { errorText } from '../../providers/data.js';
import { FilePreview, type PreviewedFile } from './FilePreview.js';
import { FileUploader, useUploadFailureNotice } from './FileUploader.js';
import { formatBytes, itemKey, itemOfKey, listUrl, NETDISC_API, useNetdiscWrites } from './netdisc-api.js';
import { MoveDialog, NameDialog, ShareDialog } from './NetdiscDialogs.js';
import {
  NetdiscGrid,
  NetdiscList,
  useDropTarget,
  type EntryActions,
  type NetdiscEntry,
} from './NetdiscItems.js';
import { NetdiscRecycleBin } from './NetdiscRecycleBin.js';
import './files.css';

/** Where the page is: the caller's own folders, what others shared, the recycle bin, a search. */
type Place =
  | { kind: 'mine'; folderId: number | null }
  | { kind: 'shared'; folderId: number | null }
  | { kind: 'recycle' }
  | { kind: 'search'; text: string };

const folderEntry = (folder: NetdiscFolder & { ownerName?: string }, isReadOnly: boolean): NetdiscEntry => ({
  key: itemKey({ type: 'folder', id: folder.id }),
  ref: { type: 'folder', id: folder.id },
  name: folder.name,
  createdAt: folder.createdAt,
  isReadOnly,
  ...(folder.ownerName ? { ownerName: folder.ownerName } : {}),
});

const fileEntry = (file: NetdiscFile, isReadOnly: boolean): NetdiscEntry => ({
  key: itemKey({ type: 'file', id: file.id }),
  ref: { type: 'file', id: file.id },
  name: file.name,
  sizeBytes: file.sizeBytes,
  fileType: file.fileType,
  contentType: file.contentType,
  ownerName: file.ownerName,
  createdAt: file.createdAt,
  isReadOnly,
});

interface TreeData {
  key: string;
  title: string;
  children: TreeData[];
}

const ROOT_KEY = 'root';

function treeData(nodes: readonly FolderNode[]): TreeData[] {
  return nodes.map((node) => ({ key: String(node.id), title: node.name, children: treeData(node.children) }));
}

/**
 * 网盘: the caller's folder tree with a breadcrumb, list and grid views, uploads into
 * the open folder, new folder, rename, move (by dragging onto a folder of the list, the grid, the
 * tree or the breadcrumb, or through 移动到), read-only shares with users, organisations and
 * roles, what others shared, search, the recycle bin and the quota bar.
 */
export default function Netdisc({ route }: { route: AppRoute }) {
  const t = useT();
  const { modal, message } = App.useApp();
  const submit = useSubmit();
  const files = useFilesApi();
  const writes = useNetdiscWrites();
  const [place, setPlace] = useState<Place>({ kind: 'mine', folderId: null });
  const [view, setView] = useState<'list' | 'grid'>('list');
  const [checked, setChecked] = useState<string[]>([]);
  const [searchText, setSearchText] = useState('');
  const [isUploading, setUploading] = useState(false);
  const [naming, setNaming] = useState<{ entry?: NetdiscEntry } | undefined>(undefined);
  const [moving, setMoving] = useState<NetdiscItemRef[] | undefined>(undefined);
  const [sharing, setSharing] = useState<NetdiscEntry | undefined>(undefined);
  const [previewed, setPreviewed] = useState<PreviewedFile | undefined>(undefined);
  const [isFilesOver, setFilesOver] = useState(false);
  const notifyFailure = useUploadFailureNotice();

  const isMine = place.kind === 'mine';
  const folderId = place.kind === 'mine' || place.kind === 'shared' ? place.folderId : null;
  const tree = useApiGet<FolderNode[]>(`${NETDISC_API}/tree`);
  const quota = useApiGet<QuotaUsage>(`${NETDISC_API}/quota`);
  const listing = useApiGet<FolderListing>(
    listUrl(folderId),
    undefined,
    isMine || (place.kind === 'shared' && folderId !== null),
  );
  const shared = useApiGet<SharedWithMe>(
    `${NETDISC_API}/sharedWithMe`,
    undefined,
    place.kind === 'shared' && folderId === null,
  );
  const found = useApiGet<SearchResult>(
    withQuery(`${NETDISC_API}/search`, { name: place.kind === 'search' ? place.text : undefined }),
    undefined,
    place.kind === 'search',
  );

  const go = (next: Place): void => {
    setPlace(next);
    setChecked([]);
  };
  const refresh = async (): Promise<void> => {
    await Promise.all([
      tree.refetch(),
      quota.refetch(),
      ...(place.kind === 'recycle' ? [] : [listing.refetch()]),
      ...(place.kind === 'shared' ? [shared.refetch()] : []),
      ...(place.kind === 'search' ? [found.refetch()] : []),
    ]);
  };

  const entries = useMemo<NetdiscEntry[]>(() => {
    if (place.kind === 'search')
      return [
        ...(found.data?.folders ?? []).map((folder) => folderEntry(folder, folder.readOnly)),
        ...(found.data?.files ?? []).map((file) => fileEntry(file, file.readOnly)),
      ];
    if (place.kind === 'shared' && place.folderId === null)
      return [
        ...(shared.data?.folders ?? []).map((folder) => folderEntry(folder, true)),
        ...(shared.data?.files ?? []).map((file) => fileEntry(file, true)),
      ];
    const isReadOnly = listing.data?.readOnly ?? place.kind === 'shared';
    return [
      ...(listing.data?.folders ?? []).map((folder) => folderEntry(folder, isReadOnly)),
      ...(listing.data?.files ?? []).map((file) => fileEntry(file, isReadOnly)),
    ];
  }, [place, found.data, shared.data, listing.data]);
  const isLoading =
    place.kind === 'search'
      ? found.isLoading
      : place.kind === 'shared' && place.folderId === null
        ? shared.isLoading
        : listing.isLoading;
  const isReadOnlyHere =
    place.kind === 'shared' || place.kind === 'search' || listing.data?.readOnly === true;

  const move = (items: NetdiscItemRef[], target: number | null): Promise<void> =>
    submit(() => writes.move(items, target), {
      success: t('netdiscUi.moved', { count: items.length }),
      after: async () => {
        setChecked([]);
        await refresh();
      },
    });
  const trash = (items: NetdiscItemRef[]): void => {
    modal.confirm({
      title: t('netdiscUi.deleteConfirm', { count: items.length }),
      okText: t('admin.common.confirm'),
      cancelText: t('admin.common.cancel'),
      onOk: () =>
        submit(() => writes.trash(items), {
          success: t('netdiscUi.deleted'),
          after: async () => {
            setChecked([]);
            await refresh();
          },
        }),
    });
  };
  const checkedItems = (): NetdiscItemRef[] | undefined => {
    const items = checked.flatMap((key) => itemOfKey(key) ?? []);
    if (items.length > 0) return items;
    void message.warning(t('netdiscUi.checkFirst'));
    return undefined;
  };
  const actions: EntryActions = {
    onOpen: (entry) =>
      go(
        entry.isReadOnly
          ? { kind: 'shared', folderId: entry.ref.id }
          : { kind: 'mine', folderId: entry.ref.id },
      ),
    onDownload: (entry) =>
      void submit(async () => saveFile(await files.download(entry.ref.id)), { success: false }),
    onPreview: (entry) =>
      setPreviewed({ id: entry.ref.id, contentType: entry.contentType ?? '', originalFilename: entry.name }),
    onRename: (entry) => setNaming({ entry }),
    onShare: (entry) => setSharing(entry),
    onDelete: (entry) => trash([entry.ref]),
    onDropInto: (target, items) => void move(items, target),
  };
  const dropTarget = useDropTarget(actions.onDropInto);

  /**
   * Files dragged from the desktop onto the list: uploaded into the open folder, one reload once
   * all are done; each failure told with its reason, a name kept as "name (1).ext" told too.
   */
  const canDropFiles = isMine && !isReadOnlyHere;
  const isFileDrag = (event: DragEvent): boolean => event.dataTransfer.types.includes('Files');
  const uploadDropped = async (dropped: File[]): Promise<void> => {
    const hide = message.loading(t('netdiscUi.uploading', { count: dropped.length }), 0);
    const results = await Promise.allSettled(
      dropped.map((file) => files.upload(file, { use: 'attachment', netdiscFolderId: folderId })),
    );
    hide();
    let uploaded = 0;
    results.forEach((result, index) => {
      const name = dropped[index]?.name ?? '';
      if (result.status === 'rejected') notifyFailure(name, errorText(result.reason));
      else {
        uploaded += 1;
        if (result.value.originalFilename !== name)
          void message.info(t('netdiscUi.uploadRenamed', { name: result.value.originalFilename }));
      }
    });
    if (uploaded > 0) void message.success(t('netdiscUi.uploaded', { count: uploaded }));
    await refresh();
  };
  const fileDropZone = canDropFiles
    ? {
        onDragOver: (event: DragEvent) => {
          if (!isFileDrag(event)) return;
          event.preventDefault();
          event.dataTransfer.dropEffect = 'copy';
          setFilesOver(true);
        },
        onDragLeave: (event: DragEvent) => {
          if (!event.currentTarget.contains(event.relatedTarget as Node | null)) setFilesOver(false);
        },
        onDrop: (event: DragEvent) => {
          setFilesOver(false);
          if (!isFileDrag(event)) return;
          event.preventDefault();
          const dropped = [...event.dataTransfer.files];
          if (dropped.length > 0) void uploadDropped(dropped);
        },
      }
    : {};

  const path = listing.data?.path ?? [];
  const crumbs =
    place.kind === 'mine'
      ? [
          { id: null, name: t('netdisc.root') },
          ...path.map((step) => ({ id: step.id as number | null, name: step.name })),
        ]
      : place.kind === 'shared'
        ? [
            { id: null, name: t('netdiscUi.sharedWithMe') },
            ...(place.folderId === null
              ? []
              : path.map((step) => ({ id: step.id as number | null, name: step.name }))),
          ]
        : [
            {
              id: null,
              name: place.kind === 'recycle' ? t('netdiscUi.recycleBin') : t('netdiscUi.searchResults'),
            },
          ];

  const usedPercent =
    quota.data && quota.data.quotaBytes > 0
      ? Math.min(100, Math.round((quota.data.usedBytes / quota.data.quotaBytes) * 1000) / 10)
      : 0;
  // Search results belong to no place, so that choosing 我的网盘 again leaves them.
  const section = place.kind === 'search' ? '' : place.kind;

  return (
    <Card title={routeTitle(route)} className="admin-page" data-testid="page-title">
      <div className="netdisc">
        <nav className="netdisc-side" aria-label={t('netdiscUi.places')}>
          <Segmented<'mine' | 'shared' | 'recycle' | ''>
            vertical
            block
            value={section}
            onChange={(key) =>
              go(
                key === 'recycle'
                  ? { kind: 'recycle' }
                  : { kind: key === 'shared' ? 'shared' : 'mine', folderId: null },
              )
            }
            options={[
              { value: 'mine', icon: <CloudOutlined />, label: t('netdisc.root') },
              { value: 'shared', icon: <TeamOutlined />, label: t('netdiscUi.sharedWithMe') },
              { value: 'recycle', icon: <RestOutlined />, label: t('netdiscUi.recycleBin') },
            ]}
            data-testid="netdisc-places"
          />
          <div className="netdisc-tree" data-testid="netdisc-tree">
            <Tree<TreeData>
              blockNode
              defaultExpandAll
              showLine
              selectedKeys={isMine ? [folderId === null ? ROOT_KEY : String(folderId)] : []}
              treeData={[{ key: ROOT_KEY, title: t('netdisc.root'), children: treeData(tree.data ?? []) }]}
              onSelect={(keys) => {
                const key = keys[0];
                if (key !== undefined) go({ kind: 'mine', folderId: key === ROOT_KEY ? null : Number(key) });
              }}
              titleRender={(node) => {
                const id = node.key === ROOT_KEY ? null : Number(node.key);
                return (
                  <span className="netdisc-tree-node" data-netdisc-tree={node.title} {...dropTarget(id)}>
                    {node.title}
                  </span>
                );
              }}
              key={(tree.data ?? []).length}
            />
          </div>
          <div className="netdisc-quota" data-testid="netdisc-quota">
            <Typography.Text type="secondary">
              {quota.data
                ? t('netdiscUi.quota', {
                    used: formatBytes(quota.data.usedBytes),
                    quota: formatBytes(quota.data.quotaBytes),
                  })
                : t('netdiscUi.quotaLoading')}
            </Typography.Text>
            <Progress
              percent={usedPercent}
              size="small"
              showInfo={false}
              status={usedPercent >= 90 ? 'exception' : 'normal'}
              aria-label={t('netdiscUi.quotaLabel')}
            />
          </div>
        </nav>
        <section className="netdisc-main" aria-label={t('netdiscUi.content')}>
          <Breadcrumb
            className="netdisc-breadcrumb"
            data-testid="netdisc-breadcrumb"
            items={crumbs.map((crumb, index) => ({
              key: `${crumb.id ?? 'top'}-${index}`,
              title:
                index === crumbs.length - 1 || place.kind === 'recycle' || place.kind === 'search' ? (
                  <span>{crumb.name}</span>
                ) : (
                  <Typography.Link
                    onClick={() =>
                      go(
                        place.kind === 'shared'
                          ? { kind: 'shared', folderId: crumb.id }
                          : { kind: 'mine', folderId: crumb.id },
                      )
                    }
                    {...(place.kind === 'mine' ? dropTarget(crumb.id) : {})}
                  >
                    {crumb.name}
                  </Typography.Link>
                ),
            }))}
          />
          {place.kind === 'recycle' ? (
            <NetdiscRecycleBin writes={writes} onChanged={refresh} />
          ) : (
            <>
              <Flex
                gap={8}
                wrap
                className="netdisc-toolbar"
                role="toolbar"
                aria-label={t('netdiscUi.toolbar')}
              >
                {isReadOnlyHere ? null : (
                  <>
                    <Button
                      type="primary"
                      icon={<UploadOutlined />}
                      onClick={() => setUploading(true)}
                      data-testid="netdisc-upload"
                    >
                      {t('netdiscUi.upload')}
                    </Button>
                    <Button
                      icon={<FolderAddOutlined />}
                      onClick={() => setNaming({})}
                      data-testid="netdisc-new-folder"
                    >
                      {t('netdiscUi.newFolder')}
                    </Button>
                    <Button
                      icon={<DragOutlined />}
                      onClick={() => {
                        const items = checkedItems();
                        if (items) setMoving(items);
                      }}
                      data-testid="netdisc-move"
                    >
                      {t('netdiscUi.moveTo')}
                    </Button>
                    <Button
                      danger
                      icon={<DeleteOutlined />}
                      onClick={() => {
                        const items = checkedItems();
                        if (items) trash(items);
                      }}
                      data-testid="netdisc-batch-delete"
                    >
                      {t('netdiscUi.delete')}
                    </Button>
                  </>
                )}
                <Button
                  icon={<ReloadOutlined />}
                  onClick={() => void refresh()}
                  aria-label={t('admin.tags.refresh')}
                />
                <Input.Search
                  className="netdisc-search"
                  allowClear
                  aria-label={t('netdiscUi.search')}
                  placeholder={t('netdiscUi.search')}
                  value={searchText}
                  onChange={(event) => setSearchText(event.target.value)}
                  onSearch={(text) =>
                    go(
                      text.trim() === ''
                        ? { kind: 'mine', folderId: null }
                        : { kind: 'search', text: text.trim() },
                    )
                  }
                  data-testid="netdisc-search"
                />
                <Segmented<'list' | 'grid'>
                  value={view}
                  onChange={setView}
                  aria-label={t('netdiscUi.view')}
                  options={[
                    { value: 'list', icon: <BarsOutlined />, label: t('netdiscUi.listView') },
                    { value: 'grid', icon: <AppstoreOutlined />, label: t('netdiscUi.gridView') },
                  ]}
                  data-testid="netdisc-view"
                />
              </Flex>
              {isReadOnlyHere && place.kind === 'shared' ? (
                <Typography.Paragraph type="secondary">{t('netdiscUi.readOnlyHint')}</Typography.Paragraph>
              ) : null}
              <div
                className="netdisc-drop-zone"
                data-testid="netdisc-drop-zone"
                data-files-over={isFilesOver && canDropFiles}
                {...fileDropZone}
              >
                {isFilesOver && canDropFiles ? (
                  <div className="netdisc-drop-hint" aria-live="polite">
                    {t('netdiscUi.dropHere', { folder: crumbs[crumbs.length - 1]?.name ?? '' })}
                  </div>
                ) : null}
                {view === 'list' ? (
                  <NetdiscList
                    entries={entries}
                    isLoading={isLoading}
                    checked={checked}
                    onCheck={setChecked}
                    actions={actions}
                  />
                ) : (
                  <NetdiscGrid
                    entries={entries}
                    isLoading={isLoading}
                    checked={checked}
                    onCheck={setChecked}
                    actions={actions}
                  />
                )}
              </div>
            </>
          )}
        </section>
      </div>
      <Modal
        open={isUploading}
        title={t('netdiscUi.uploadInto', { folder: crumbs[crumbs.length - 1]?.name ?? '' })}
        footer={null}
        onCancel={() => setUploading(false)}
        destroyOnHidden
        width={640}
      >
        <FileUploader folderId={folderId} onUploaded={() => void refresh()} />
      </Modal>
      <NameDialog
        title={naming?.entry ? t('netdiscUi.rename') : t('netdiscUi.newFolder')}
        initialName={naming?.entry?.name ?? ''}
        isOpen={naming !== undefined}
        onClose={() => setNaming(undefined)}
        onSubmit={async (name) => {
          if (naming?.entry) await writes.rename(naming.entry.ref, name);
          else await writes.createFolder(name, folderId);
          void message.success(t('admin.common.operateSuccess'));
          await refresh();
        }}
      />
      <MoveDialog
        items={moving}
        tree={tree.data ?? []}
        onClose={() => setMoving(undefined)}
        onMove={async (target) => {
          if (!moving) return;
          await writes.move(moving, target);
          void message.success(t('netdiscUi.moved', { count: moving.length }));
          setChecked([]);
          await refresh();
        }}
      />
      <FilePreview file={previewed} onClose={() => setPreviewed(undefined)} />
      <ShareDialog
        item={sharing ? { ...sharing.ref, name: sharing.name } : undefined}
        onClose={() => setSharing(undefined)}
        onShare={async (targets) => {
          if (!sharing) return;
          await writes.share(sharing.ref, targets);
          void message.success(t('netdiscUi.shared'));
        }}
      />
    </Card>
  );
}
