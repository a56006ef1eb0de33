import { useDataProvider } from '@refinedev/core';
import type { UploadProps } from 'antd';
import { useCallback, useMemo } from 'react';
import type { FileLink, FileRecord } from '../../engine/index.js';
import type { DownloadedFile } from '../providers/data.js';

/**
 * The file calls of the back-office (/api/file/file) through the data provider's
 * custom: uploads with progress and cancel, names and addresses of stored file ids, downloads
 * with the caller's token.
 */

export const FILE_API = '/api/file/file';

/** Extensions the editor and picture fields take (docs/product.md §5). */
export const IMAGE_EXTENSIONS: readonly string[] = ['jpg', 'jpeg', 'gif', 'png', 'bmp'];

/** Whether a chosen file may be uploaded as a picture (by its name; the server sniffs the bytes). */
export function isImageName(name: string): boolean {
  const extension = /\.([A-Za-z0-9]+)$/.exec(name)?.[1]?.toLowerCase() ?? '';
  return IMAGE_EXTENSIONS.includes(extension);
}

/** A file as upload and query answer it. */
export type UploadedFile = FileRecord;
export type { FileLink };

export interface UploadOptions {
  use: 'image' | 'attachment';
  /** Percent of the bytes sent. */
  onProgress?: (percent: number) => void;
  signal?: AbortSignal;
  /** Into the caller's netdisc (counted in their quota): this folder, or the root when null. */
  netdiscFolderId?: number | null;
}

export interface FilesApi {
  upload(file: Blob & { name?: string }, options: UploadOptions): Promise<UploadedFile>;
  links(ids: number[]): Promise<FileLink[]>;
  download(id: number): Promise<DownloadedFile>;
  remove(ids: number[]): Promise<number>;
}

interface ProgressEvent {
  loaded: number;
  total?: number;
}

export function useFilesApi(): FilesApi {
  const dataProvider = useDataProvider();
  const custom = useCallback(
    async <T>(
      parameters: Parameters<NonNullable<ReturnType<typeof dataProvider>['custom']>>[0],
    ): Promise<T> => {
      const { custom: call } = dataProvider();
      if (!call) throw new Error('The data provider has no custom method');
      return (await call(parameters)).data as T;
    },
    [dataProvider],
  );
  return useMemo<FilesApi>(
    () => ({
      upload: (file, { use, onProgress, signal, netdiscFolderId }) => {
        const form = new FormData();
        const isNetdisc = netdiscFolderId !== undefined;
        if (!isNetdisc) form.append('use', use);
        if (typeof netdiscFolderId === 'number') form.append('folderId', String(netdiscFolderId));
        form.append('file', file, file.name ?? 'file');
        return custom<UploadedFile>({
          url: isNetdisc ? '/api/file/netdisc/upload' : `${FILE_API}/upload`,
          method: 'post',
          payload: form,
          meta: {
            silent: true,
            signal,
            onUploadProgress: (event: ProgressEvent) => {
              const total = event.total ?? file.size;
              if (onProgress && total > 0)
                onProgress(Math.min(100, Math.round((event.loaded / total) * 100)));
            },
          },
        });
      },
      links: async (ids) =>
        ids.length === 0
          ? []
          : (
              await custom<{ records: FileLink[] }>({
                url: `${FILE_API}/info`,
                method: 'get',
                query: { id: ids },
                meta: { silent: true },
              })
            ).records,
      download: (id) =>
        custom<DownloadedFile>({
          url: `${FILE_API}/download?id=${id}`,
          method: 'get',
          meta: { download: true },
        }),
      remove: async (ids) =>
        (
          await custom<{ deleted: number }>({
            url: `${FILE_API}/delete?${ids.map((id) => `id=${id}`).join('&')}`,
            method: 'post',
          })
        ).deleted,
    }),
    [custom],
  );
}

/** Hands a downloaded file to the browser under its name. */
export function saveFile({ blob, fileName }: DownloadedFile): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** The progress bar of an upload list, named for assistive technology (antd leaves it unnamed). */
export function uploadProgress(label: string): UploadProps['progress'] {
  return { size: 2, showInfo: true, 'aria-label': label } as UploadProps['progress'];
}
