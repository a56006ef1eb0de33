import { Button, Drawer, Empty, Flex, Popconfirm, Table, Tag } from 'antd';
import { useMemo, useState } from 'react';
import { useT } from '../../i18n.js';
import type { TemplateVersion } from '../../../engine/api-types.js';
import { useApiGet } from '../../lib/api.js';
import { lineDiff, type DiffLine } from './line-diff.js';

export type { TemplateVersion };

const MARK: Record<DiffLine['kind'], string> = { same: ' ', added: '+', removed: '-' };

/** One version against the current text, line by line (removed lines red, added ones green). */
function VersionDiff({ before, after }: { before: string; after: string }) {
  const t = useT();
  const lines = useMemo(() => lineDiff(before, after), [before, after]);
  const added = lines.filter((line) => line.kind === 'added').length;
  const removed = lines.filter((line) => line.kind === 'removed').length;
  return (
    <>
      <p data-testid="template-diff-summary">
        {added + removed === 0
          ? t('codegen.template.noDifference')
          : t('codegen.template.diffSummary', { added, removed })}
      </p>
      <pre className="codegen-code codegen-diff" data-testid="template-diff" tabIndex={0}>
        {lines.map((line, index) => (
          <div key={index} className={`codegen-diff-${line.kind}`}>
            <span className="codegen-diff-number">{line.oldLine ?? ''}</span>
            <span className="codegen-diff-number">{line.newLine ?? ''}</span>
            <span aria-hidden="true">{MARK[line.kind]} </span>
            {line.kind !== 'same' && (
              <span className="codegen-sr-only">{t(`codegen.template.line.${line.kind}`)} </span>
            )}
            {line.text}
          </div>
        ))}
      </pre>
    </>
  );
}

/**
 * A template's saved versions, newest first: each compared with the current text (the older
 * version on the left of the diff, the current one on the right) and restorable, which saves its
 * text as a new version so that the history keeps every step.
 */
export default function TemplateHistory({
  templateId,
  title,
  current,
  currentVersion,
  onRestore,
  onClose,
}: {
  templateId: number;
  title: string;
  current: string;
  currentVersion: number;
  onRestore: (version: TemplateVersion) => Promise<void>;
  onClose: () => void;
}) {
  const t = useT();
  const versions = useApiGet<TemplateVersion[]>('/api/generator/template/versions', { id: templateId });
  const [shown, setShown] = useState<TemplateVersion | undefined>(undefined);
  const label = (key: string): string => t(`codegen.template.${key}`);
  return (
    <Drawer
      open
      width="min(960px, 100vw)"
      title={t('codegen.template.historyTitle', { item: title })}
      onClose={onClose}
      data-testid="template-history"
    >
      <Table<TemplateVersion>
        size="small"
        rowKey="version"
        loading={versions.isLoading}
        dataSource={versions.data ?? []}
        pagination={false}
        locale={{ emptyText: <Empty description={label('noVersions')} /> }}
        columns={[
          {
            key: 'version',
            title: label('version'),
            render: (_v: unknown, row: TemplateVersion) => (
              <Flex gap={4}>
                v{row.version}
                {row.version === currentVersion && <Tag color="blue">{label('current')}</Tag>}
              </Flex>
            ),
          },
          {
            key: 'createdAt',
            title: label('savedAt'),
            render: (_v: unknown, row: TemplateVersion) => new Date(row.createdAt).toLocaleString(),
          },
          { key: 'createdBy', dataIndex: 'createdBy', title: label('savedBy') },
          {
            key: 'actions',
            title: label('actions'),
            render: (_v: unknown, row: TemplateVersion) => (
              <Flex gap={4}>
                <Button
                  type="link"
                  onClick={() => setShown(row)}
                  data-testid={`template-diff-v${row.version}`}
                >
                  {label('compare')}
                </Button>
                {row.version !== currentVersion && (
                  <Popconfirm
                    title={t('codegen.template.restoreConfirm', { version: row.version })}
                    onConfirm={() => onRestore(row)}
                  >
                    <Button type="link" data-testid={`template-restore-v${row.version}`}>
                      {label('restore')}
                    </Button>
                  </Popconfirm>
                )}
              </Flex>
            ),
          },
        ]}
      />
      {shown && (
        <section aria-label={t('codegen.template.diffTitle', { version: shown.version })}>
          <h3>{t('codegen.template.diffTitle', { version: shown.version })}</h3>
          <VersionDiff before={shown.content} after={current} />
        </section>
      )}
    </Drawer>
  );
}
