import { InboxOutlined } from '@ant-design/icons';
import { useDataProvider, type HttpError } from '@refinedev/core';
import { Alert, App, Button, Modal, Progress, Space, Table, Tooltip, Typography, Upload } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { useMemo, useState } from 'react';
import type { ImportProblem, ImportResult } from '../../engine/api-types.js';
import { useT } from '../i18n.js';
import type { DownloadedFile } from '../providers/data.js';
import type { ResourceApi } from '../providers/resources.js';
import { saveFile } from './file-api.js';

type Stage =
  | { step: 'choose' }
  | { step: 'uploading'; percent: number; isImport: boolean }
  | { step: 'checked'; file: File; answer: ImportResult }
  | { step: 'done'; imported: number };

interface PreviewRow {
  row: number;
  values: Record<string, string>;
}

export interface ImportDialogProps {
  api: ResourceApi;
  title: string;
  onClose: (imported: boolean) => void;
}

/**
 * Import into a generated list: the template, a file chosen, a dry run whose rows are previewed
 * with each problem on its cell, then the import itself (all rows or none). Upload progress is
 * shown for large files; the server's check and write follow as one step.
 */
export default function ImportDialog({ api, title, onClose }: ImportDialogProps): React.ReactElement {
  const t = useT();
  const { message } = App.useApp();
  const dataProvider = useDataProvider();
  const [stage, setStage] = useState<Stage>({ step: 'choose' });
  const [failure, setFailure] = useState<string | undefined>();
  const base = `/api/${api.base}`;

  const send = async (file: File, dryRun: boolean): Promise<ImportResult> => {
    const call = dataProvider().custom;
    if (!call) throw new Error('The data provider has no custom method');
    const form = new FormData();
    form.append('file', file, file.name);
    setStage({ step: 'uploading', percent: 0, isImport: !dryRun });
    const answer = await call({
      url: `${base}/import${dryRun ? '?dryRun=true' : ''}`,
      method: 'post',
      payload: form,
      meta: {
        silent: true,
        onUploadProgress: (event: { loaded: number; total?: number }) => {
          const total = event.total ?? file.size;
          if (total > 0)
            setStage({
              step: 'uploading',
              percent: Math.round((event.loaded / total) * 100),
              isImport: !dryRun,
            });
        },
      },
    });
    return answer.data as unknown as ImportResult;
  };

  const check = async (file: File): Promise<void> => {
    setFailure(undefined);
    try {
      setStage({ step: 'checked', file, answer: await send(file, true) });
    } catch (error) {
      setFailure((error as HttpError).message);
      setStage({ step: 'choose' });
    }
  };

  const run = async (file: File): Promise<void> => {
    setFailure(undefined);
    try {
      const answer = await send(file, false);
      setStage({ step: 'done', imported: answer.imported });
      void message.success(t('import.imported', { count: answer.imported }));
    } catch (error) {
      setFailure((error as HttpError).message);
      setStage({ step: 'choose' });
    }
  };

  const downloadTemplate = async (): Promise<void> => {
    const call = dataProvider().custom;
    if (!call) return;
    const answer = await call({ url: `${base}/importTemplate`, method: 'get', meta: { download: true } });
    saveFile(answer.data as unknown as DownloadedFile);
  };

  const answer = stage.step === 'checked' ? stage.answer : undefined;
  const problemsByCell = useMemo(() => {
    const byCell = new Map<string, string[]>();
    for (const problem of answer?.problems ?? []) {
      const key = `${problem.row}/${problem.field}`;
      byCell.set(key, [...(byCell.get(key) ?? []), problem.message]);
    }
    return byCell;
  }, [answer]);

  const columns: ColumnsType<PreviewRow> = [
    { key: 'row', title: t('import.row'), dataIndex: 'row', width: 70, fixed: 'left' },
    ...(answer?.columns ?? []).map((column) => ({
      key: column.field,
      title: column.title,
      width: 160,
      render: (_: unknown, record: PreviewRow) => {
        const text = record.values[column.field] ?? '';
        const problems = problemsByCell.get(`${record.row}/${column.field}`);
        if (!problems) return text;
        return (
          <Tooltip title={problems.join('; ')}>
            <div className="import-cell-problem" data-testid={`import-problem-${record.row}-${column.field}`}>
              <div>{text === '' ? '—' : text}</div>
              <Typography.Text type="danger" className="import-cell-message">
                {problems.join('; ')}
              </Typography.Text>
            </div>
          </Tooltip>
        );
      },
    })),
  ];
  const headerProblems = (answer?.problems ?? []).filter((problem) => problem.row === 1);
  const previewRows = new Set((answer?.preview ?? []).map((row) => row.row));
  const laterProblems = (answer?.problems ?? []).filter(
    (problem) => problem.row > 1 && !previewRows.has(problem.row),
  );

  const footer =
    stage.step === 'checked' ? (
      <Space>
        <Button onClick={() => setStage({ step: 'choose' })} data-testid="import-again">
          {t('import.again')}
        </Button>
        <Button
          type="primary"
          disabled={stage.answer.problemCount > 0 || stage.answer.total === 0}
          onClick={() => void run(stage.file)}
          data-testid="import-run"
        >
          {t('import.run', { total: stage.answer.total })}
        </Button>
      </Space>
    ) : stage.step === 'done' ? (
      <Button type="primary" onClick={() => onClose(true)} data-testid="import-close">
        {t('admin.common.confirm')}
      </Button>
    ) : null;

  return (
    <Modal
      open
      width={stage.step === 'checked' ? 1000 : 560}
      title={t('import.title', { entity: title })}
      onCancel={() => onClose(stage.step === 'done')}
      footer={footer}
      destroyOnHidden
      data-testid="import-dialog"
    >
      {failure ? <Alert type="error" showIcon message={failure} style={{ marginBottom: 12 }} /> : null}
      {stage.step === 'choose' ? (
        <Space direction="vertical" style={{ width: '100%' }}>
          <Button onClick={() => void downloadTemplate()} data-testid="import-template">
            {t('import.template')}
          </Button>
          <Upload.Dragger
            accept=".xlsx,.csv"
            showUploadList={false}
            beforeUpload={(file) => {
              void check(file);
              return false;
            }}
            data-testid="import-file"
          >
            <p className="ant-upload-drag-icon">
              <InboxOutlined />
            </p>
            <p className="ant-upload-text">{t('import.drop')}</p>
            <p className="ant-upload-hint">{t('import.choose')}</p>
          </Upload.Dragger>
        </Space>
      ) : null}
      {stage.step === 'uploading' ? (
        <Space direction="vertical" style={{ width: '100%' }} data-testid="import-progress">
          <Progress percent={stage.percent} status="active" />
          <Typography.Text>
            {stage.percent < 100
              ? t('import.uploading', { percent: stage.percent })
              : t(stage.isImport ? 'import.importing' : 'import.checking')}
          </Typography.Text>
        </Space>
      ) : null}
      {answer ? (
        <Space direction="vertical" style={{ width: '100%' }}>
          <Alert
            type={answer.problemCount > 0 ? 'warning' : 'success'}
            showIcon
            data-testid="import-summary"
            message={
              answer.problemCount > 0
                ? t('import.summary', { total: answer.total, problems: answer.problemCount })
                : t('import.ready', { total: answer.total })
            }
          />
          {answer.ignored.length > 0 ? (
            <Typography.Text type="secondary">
              {t('import.ignored', { columns: answer.ignored.join(', ') })}
            </Typography.Text>
          ) : null}
          {headerProblems.length > 0 ? (
            <Alert
              type="error"
              message={t('import.headerProblems')}
              description={headerProblems.map((problem) => problem.message).join('; ')}
            />
          ) : null}
          <Table<PreviewRow>
            size="small"
            rowKey="row"
            columns={columns}
            dataSource={answer.preview ?? []}
            pagination={{ pageSize: 10, showSizeChanger: false }}
            scroll={{ x: 'max-content' }}
            data-testid="import-preview"
          />
          {(answer.preview?.length ?? 0) < answer.total ? (
            <Typography.Text type="secondary">
              {t('import.more', { shown: answer.preview?.length ?? 0, total: answer.total })}
            </Typography.Text>
          ) : null}
          {laterProblems.length > 0 ? (
            <Table<ImportProblem>
              size="small"
              rowKey={(problem) => `${problem.row}/${problem.field}/${problem.message}`}
              columns={[
                { key: 'row', title: t('import.row'), dataIndex: 'row', width: 70 },
                { key: 'field', title: t('import.problems'), dataIndex: 'field', width: 160 },
                { key: 'message', title: '', dataIndex: 'message' },
              ]}
              dataSource={laterProblems}
              pagination={{ pageSize: 10, showSizeChanger: false }}
            />
          ) : null}
        </Space>
      ) : null}
      {stage.step === 'done' ? (
        <Alert
          type="success"
          showIcon
          message={t('import.imported', { count: stage.imported })}
          data-testid="import-done"
        />
      ) : null}
    </Modal>
  );
}
