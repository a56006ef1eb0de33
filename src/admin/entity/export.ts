import { useDataProvider, type CrudFilters } from '@refinedev/core';
import { App } from 'antd';
import type { AxiosProgressEvent } from 'axios';
import { useState } from 'react';
import type { EntityDef } from '../../engine/index.js';
import { useT } from '../i18n.js';
import { filterParams, type DownloadedFile } from '../providers/data.js';
import type { ResourceApi } from '../providers/resources.js';

/** Hands a downloaded file to the browser under the server's name. */
function save(file: DownloadedFile): void {
  const url = URL.createObjectURL(file.blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = file.fileName;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export interface Exporter {
  run: (filters: CrudFilters, sort: string | undefined) => Promise<void>;
  isExporting: boolean;
  /** Percent received, when the server says how long the file is; else undefined. */
  percent: number | undefined;
}

/** POST <base>/export with the list's current filters and sort; the xlsx is downloaded. */
export function useExport(api: ResourceApi, entity: EntityDef): Exporter {
  const t = useT();
  const { message } = App.useApp();
  const provider = useDataProvider()();
  const [isExporting, setExporting] = useState(false);
  const [percent, setPercent] = useState<number | undefined>(undefined);
  const run = async (filters: CrudFilters, sort: string | undefined): Promise<void> => {
    setExporting(true);
    setPercent(undefined);
    const key = `export-${entity.name}`;
    void message.loading({ key, content: t('admin.crud.exportRunning'), duration: 0 });
    try {
      const answer = await provider.custom?.({
        url: `/api/${api.base}/export`,
        method: 'post',
        payload: { ...filterParams(filters), ...(sort ? { sort } : {}) },
        meta: {
          download: true,
          onProgress: (event: AxiosProgressEvent) => {
            if (event.total) setPercent(Math.round((event.loaded / event.total) * 100));
          },
        },
      });
      if (answer) save(answer.data as unknown as DownloadedFile);
      void message.success({ key, content: t('admin.crud.exportDone') });
    } catch {
      message.destroy(key);
    } finally {
      setExporting(false);
    }
  };
  return { run, isExporting, percent };
}
