import { InboxOutlined } from '@ant-design/icons';
import { useDataProvider, type HttpError } from '@refinedev/core';
import {
  Alert,
  Button,
  Checkbox,
  Modal,
  Progress,
  Radio,
  Space,
  Table,
  Tooltip,
  Typography,
  Upload,
} from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { useEffect, useMemo, useRef, useState } from 'react';
import type { ImportJob, ImportMode, ImportProblem, ImportResult } from '../../engine/api-types.js';
import { useT } from '../i18n.js';
import type { DownloadedFile } from '../providers/data.js';
import type { ResourceApi } from '../providers/resources.js';
import { saveFile } from './file-api.js';
import { useImportJob } from './import-job.js';

type Stage =
  | { step: 'choose' }
  | { step: 'uploading'; percent: number; isImport: boolean }
  | { step: 'checked'; file: File; answer: ImportResult }
  | { step: 'job' };

interface PreviewRow {
  row: number;
  values: Record<string, string>;
}

export interface ImportDialogProps {
  api: ResourceApi;
  title: string;
  onClose: (imported: boolean) => void;
  /** A job this dialog followed has ended with rows stored: the list behind it reads again. */
  onImported?: () => void;
}

/**
 * Import into a generated list: the template, the options (all rows or only the good ones;
 * update existing records by key), a file chosen, a dry run whose rows are previewed with each
 * problem on its cell, then the import itself as a background job whose progress (rows done of
 * total) is polled. The dialog may be closed while the job runs: reopened, it shows the entity's
 * latest job, running or ended, with its result (as a summary line once that result was seen).
 */
export default function ImportDialog({
  api,
  title,
  onClose,
  onImported,
}: ImportDialogProps): React.ReactElement {
  const t = useT();
  const dataProvider = useDataProvider();
  const [stage, setStage] = useState<Stage>({ step: 'choose' });
  const [failure, setFailure] = useState<string | undefined>();
  const [mode, setMode] = useState<ImportMode>('all');
  const [updateByKey, setUpdateByKey] = useState(false);
  const { job, endUnseen, follow, forget } = useImportJob(api.entity?.name ?? api.name);
  // the list behind the dialog shows the imported rows as the job ends, not only once it closes
  // (a job followed here that ends, or one that ended while no dialog showed it)
  const wasRunning = useRef(false);
  const announced = useRef<number | undefined>(undefined);
  useEffect(() => {
    if (!job || announced.current === job.id) return;
    if (job.status === 'running') wasRunning.current = true;
    else if (job.status === 'done' && (wasRunning.current || endUnseen)) {
      announced.current = job.id;
      onImported?.();
    }
  }, [job, endUnseen, onImported]);
  const base = `/api/${api.base}`;

  const send = async (file: File, dryRun: boolean): Promise<unknown> => {
    const call = dataProvider().custom;
    if (!call) throw new Error('The data provider has no custom method');
    const form = new FormData();
    form.append('file', file, file.name);
    setStage({ step: 'uploading', percent: 0, isImport: !dryRun });
    const query = new URLSearchParams(dryRun ? { dryRun: 'true' } : { background: 'true' });
    if (mode === 'partial') query.set('mode', 'partial');
    if (updateByKey) query.set('updateByKey', 'true');
    const answer = await call({
      url: `${base}/import?${query.toString()}`,
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
    return answer.data;
  };

  const check = async (file: File): Promise<void> => {
    setFailure(undefined);
    try {
      setStage({ step: 'checked', file, answer: (await send(file, true)) as ImportResult });
    } catch (error) {
      setFailure((error as HttpError).message);
      setStage({ step: 'choose' });
    }
  };

  const run = async (file: File): Promise<void> => {
    setFailure(undefined);
    try {
      follow((await send(file, false)) as ImportJob);
      setStage({ step: 'job' });
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

  const isRunning = job?.status === 'running';
  // A job found running on opening is followed to its end here, as one started in this dialog;
  // one that ended while the dialog was closed shows its result.
  useEffect(() => {
    if ((isRunning || endUnseen) && stage.step === 'choose') setStage({ step: 'job' });
  }, [isRunning, endUnseen, stage.step]);
  // A running job (this dialog's, or one found on opening) is shown whatever the stage.
  const showsJob = job !== undefined && (stage.step === 'job' || isRunning);
  const again = (): void => {
    forget();
    setStage({ step: 'choose' });
  };
  const canRun = (answer: ImportResult): boolean =>
    answer.total > 0 &&
    (answer.problemCount === 0 || (mode === 'partial' && answer.problems.some((p) => p.row > 1)));

  const footer = showsJob ? (
    isRunning ? (
      <Button onClick={() => onClose(false)} data-testid="import-leave">
        {t('admin.common.cancel')}
      </Button>
    ) : (
      <Space>
        <Button onClick={again} data-testid="import-again">
          {t('import.newImport')}
        </Button>
        <Button type="primary" onClick={() => onClose(job.status === 'done')} data-testid="import-close">
          {t('admin.common.confirm')}
        </Button>
      </Space>
    )
  ) : stage.step === 'checked' ? (
    <Space>
      <Button onClick={() => setStage({ step: 'choose' })} data-testid="import-again">
        {t('import.again')}
      </Button>
      <Button
        type="primary"
        disabled={!canRun(stage.answer)}
        onClick={() => void run(stage.file)}
        data-testid="import-run"
      >
        {t('import.run', { total: stage.answer.total })}
      </Button>
    </Space>
  ) : null;

  return (
    <Modal
      open
      width={stage.step === 'checked' ? 1000 : 560}
      title={t('import.title', { entity: title })}
      onCancel={() => onClose(showsJob && job.status === 'done')}
      footer={footer}
      destroyOnHidden
      data-testid="import-dialog"
    >
      {failure ? <Alert type="error" showIcon message={failure} style={{ marginBottom: 12 }} /> : null}
      {showsJob ? <JobPanel job={job} /> : null}
      {stage.step === 'choose' && !showsJob ? (
        <Space direction="vertical" style={{ width: '100%' }}>
          {job ? (
            <Alert
              type={job.status === 'done' ? 'info' : 'warning'}
              showIcon
              data-testid="import-last-job"
              message={`${t('import.lastJob')}: ${jobSummary(t, job)}`}
            />
          ) : null}
          <Button onClick={() => void downloadTemplate()} data-testid="import-template">
            {t('import.template')}
          </Button>
          <Space direction="vertical" size={4}>
            <Typography.Text id="import-mode-label">{t('import.modeLabel')}</Typography.Text>
            <Radio.Group
              value={mode}
              onChange={(event) => setMode(event.target.value as ImportMode)}
              aria-labelledby="import-mode-label"
              data-testid="import-mode"
            >
              <Space direction="vertical" size={0}>
                <Radio value="all">{t('import.modeAll')}</Radio>
                <Radio value="partial" data-testid="import-mode-partial">
                  {t('import.modePartial')}
                </Radio>
              </Space>
            </Radio.Group>
            <Checkbox
              checked={updateByKey}
              onChange={(event) => setUpdateByKey(event.target.checked)}
              data-testid="import-update-by-key"
            >
              {t('import.updateByKey')}
            </Checkbox>
          </Space>
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
      {answer && !showsJob ? (
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
    </Modal>
  );
}

type Translate = ReturnType<typeof useT>;

/** One line about an ended job: what it imported, updated and skipped, or why it failed. */
function jobSummary(t: Translate, job: ImportJob): string {
  if (job.status === 'failed')
    return t('import.jobFailed', { file: job.fileName, message: job.error?.message ?? '' });
  if (job.status === 'running')
    return `${job.fileName}: ${t('import.progress', { done: job.done, total: job.total })}`;
  const result = job.result;
  const parts = [t('import.jobDone', { file: job.fileName, count: result?.imported ?? 0 })];
  if (result?.updated) parts.push(t('import.jobUpdated', { count: result.updated }));
  if (result?.skipped) parts.push(t('import.jobSkipped', { count: result.skipped }));
  return parts.join(t('import.listSeparator'));
}

/** A job followed in the dialog: its progress while it runs, then its result or its failure. */
function JobPanel({ job }: { job: ImportJob }): React.ReactElement {
  const t = useT();
  if (job.status === 'running') {
    const percent = job.total > 0 ? Math.floor((job.done / job.total) * 100) : 0;
    return (
      <Space direction="vertical" style={{ width: '100%' }} data-testid="import-job">
        <Progress percent={percent} status="active" aria-labelledby="import-job-progress" />
        <Typography.Text id="import-job-progress" data-testid="import-job-progress">
          {job.total > 0
            ? `${job.phase ? `${t(`import.phase.${job.phase}`)} · ` : ''}${t('import.progress', { done: job.done, total: job.total })}`
            : t('import.counting')}
        </Typography.Text>
        <Typography.Text type="secondary">{t('import.background')}</Typography.Text>
      </Space>
    );
  }
  const problems: { key: string; row: string; message: string }[] =
    job.status === 'done'
      ? (job.result?.problems ?? []).map((problem, index) => ({
          key: `${index}`,
          row: `${problem.sheet ? `${problem.sheet} ` : ''}${problem.row}`,
          message: problem.message,
        }))
      : (job.error?.errors ?? []).map((error, index) => ({
          key: `${index}`,
          row: error.field.split('/').slice(0, -1).filter(Boolean).join(' '),
          message: error.message,
        }));
  return (
    <Space direction="vertical" style={{ width: '100%' }} data-testid="import-job">
      <Alert
        type={job.status === 'done' ? 'success' : 'error'}
        showIcon
        message={jobSummary(t, job)}
        data-testid={job.status === 'done' ? 'import-done' : 'import-failed'}
      />
      {problems.length > 0 ? (
        <Table
          size="small"
          rowKey="key"
          columns={[
            { key: 'row', title: t('import.row'), dataIndex: 'row', width: 90 },
            { key: 'message', title: t('import.problems'), dataIndex: 'message' },
          ]}
          dataSource={problems}
          pagination={{ pageSize: 10, showSizeChanger: false }}
          data-testid="import-job-problems"
        />
      ) : null}
    </Space>
  );
}
