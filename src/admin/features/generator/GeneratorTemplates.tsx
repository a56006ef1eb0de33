import { Alert, App, Button, Card, Flex, Popconfirm, Select, Space, Spin, Table, Tag } from 'antd';
import { lazy, Suspense, useState } from 'react';
import { routeTitle, useT } from '../../i18n.js';
import type { AppRoute } from '../../lib/menus.js';
import { useApiGet, useApiWrite, useCanButton, withQuery } from '../../lib/api.js';
import { errorText } from '../../lib/screen-parts.js';
import { CodeView } from './CodeView.js';
import type {
  TemplateCheck,
  TemplateProblem as Problem,
  TemplateRecord as Template,
  TemplateVersion,
} from '../../../engine/api-types.js';
import './codegen.css';

const TemplateEditor = lazy(() => import('./TemplateEditor.js'));
const TemplateHistory = lazy(() => import('./TemplateHistory.js'));

/** "3:5 message" (a save refused by the server) back into a problem with its place. */
function problemsOf(error: unknown): Problem[] {
  const errors = (error as { errors?: Record<string, string[] | string> }).errors ?? {};
  const messages = Object.values(errors).flatMap((value) => (Array.isArray(value) ? value : [value]));
  return messages.map((text) => {
    const match = /^(\d+):(\d+) (.*)$/s.exec(text);
    return match
      ? { line: Number(match[1]), column: Number(match[2]), message: match[3] ?? text }
      : { message: text };
  });
}

/**
 * Generator templates (docs/product.md §2.3 generatortemplate): each template item, built-in or the
 * tenant's own; edited in a code editor, checked (compile errors at line and column, a dry run
 * against a sample entity) and saved as a new version.
 */
export default function GeneratorTemplates({ route }: { route: AppRoute }) {
  const t = useT();
  const { message } = App.useApp();
  const can = useCanButton(route.code);
  const templates = useApiGet<Template[]>('/api/generator/template/query');
  const { send, isSending } = useApiWrite();
  const [editing, setEditing] = useState<Template | undefined>(undefined);
  const [draft, setDraft] = useState('');
  const [problems, setProblems] = useState<Problem[]>([]);
  const [output, setOutput] = useState<string | undefined>(undefined);
  const [focusAt, setFocusAt] = useState<{ line: number; column: number } | undefined>(undefined);
  const [sampleEntity, setSampleEntity] = useState('sysregion');
  const [history, setHistory] = useState<Template | undefined>(undefined);
  const label = (key: string): string => t(`codegen.template.${key}`);

  const open = (template: Template): void => {
    setEditing(template);
    setDraft(template.content);
    setProblems([]);
    setOutput(undefined);
  };

  const showProblems = (found: Problem[]): void => {
    setProblems(found);
    const first = found.find((problem) => problem.line !== undefined);
    if (first?.line !== undefined) setFocusAt({ line: first.line, column: first.column ?? 1 });
  };

  const check = async (): Promise<void> => {
    try {
      const answer = await send<TemplateCheck>('post', '/api/generator/template/check', {
        content: draft,
        sampleEntity,
      });
      showProblems(answer.problems);
      setOutput(answer.output);
    } catch (error) {
      void message.error(errorText(error));
    }
  };

  const save = async (): Promise<void> => {
    if (!editing) return;
    const body = { templateType: editing.templateType, templateItem: editing.templateItem, content: draft };
    try {
      const saved =
        editing.id === null
          ? await send<Template>('post', '/api/generator/template/add', body)
          : await send<Template>('put', '/api/generator/template/update', {
              ...body,
              id: editing.id,
              version: editing.version,
            });
      setEditing(saved);
      setProblems([]);
      void message.success(t('admin.crud.saved'));
      await templates.refetch();
    } catch (error) {
      const found = problemsOf(error);
      if (found.length > 0) showProblems(found);
      else void message.error(errorText(error));
    }
  };

  const revert = async (template: Template): Promise<void> => {
    if (template.id === null) return;
    try {
      await send('post', withQuery('/api/generator/template/delete', { id: template.id }));
      setEditing(undefined);
      await templates.refetch();
    } catch (error) {
      void message.error(errorText(error));
    }
  };

  /** Saves an old version's text as the newest version (the history keeps every step). */
  const restore = async (template: Template, old: TemplateVersion): Promise<void> => {
    if (template.id === null) return;
    try {
      const saved = await send<Template>('put', '/api/generator/template/update', {
        templateType: template.templateType,
        templateItem: template.templateItem,
        content: old.content,
        id: template.id,
        version: template.version,
      });
      void message.success(t('codegen.template.restored', { from: old.version, to: saved.version }));
      setHistory(saved);
      if (editing?.id === saved.id) open(saved);
      await templates.refetch();
    } catch (error) {
      void message.error(errorText(error));
    }
  };

  const itemName = (item: string): string => t(`dicts.template_item.${item}`, { defaultValue: item });
  return (
    <Card title={routeTitle(route)} className="admin-page" data-testid="page-title">
      <Table<Template>
        size="small"
        rowKey="templateItem"
        loading={templates.isLoading}
        dataSource={templates.data ?? []}
        pagination={false}
        data-testid="template-list"
        columns={[
          {
            key: 'templateItem',
            title: label('item'),
            render: (_v: unknown, row: Template) => `${itemName(row.templateItem)} (${row.templateItem})`,
          },
          {
            key: 'templateType',
            title: label('type'),
            render: (_v: unknown, row: Template) =>
              t(`dicts.template_type.${row.templateType}`, { defaultValue: row.templateType }),
          },
          {
            key: 'version',
            title: label('version'),
            render: (_v: unknown, row: Template) =>
              row.isBuiltIn ? <Tag>{label('builtIn')}</Tag> : <Tag color="blue">v{row.version}</Tag>,
          },
          {
            key: 'actions',
            title: label('actions'),
            render: (_v: unknown, row: Template) => (
              <Space>
                <Button
                  type="link"
                  onClick={() => open(row)}
                  data-testid={`template-edit-${row.templateItem}`}
                >
                  {t('admin.crud.edit')}
                </Button>
                {!row.isBuiltIn && (
                  <Button
                    type="link"
                    onClick={() => setHistory(row)}
                    data-testid={`template-history-${row.templateItem}`}
                  >
                    {label('history')}
                  </Button>
                )}
                {!row.isBuiltIn && can('delete') && (
                  <Popconfirm title={label('revertConfirm')} onConfirm={() => revert(row)}>
                    <Button type="link" danger>
                      {label('revert')}
                    </Button>
                  </Popconfirm>
                )}
              </Space>
            ),
          },
        ]}
      />
      {history && history.id !== null && (
        <Suspense fallback={<Spin />}>
          <TemplateHistory
            // A restore adds a version: the list is read again.
            key={`${history.id}-${history.version}`}
            templateId={history.id}
            title={itemName(history.templateItem)}
            current={history.content}
            currentVersion={history.version}
            onRestore={(old) => restore(history, old)}
            onClose={() => setHistory(undefined)}
          />
        </Suspense>
      )}
      {editing && (
        <div className="codegen-editing" data-testid="template-editing">
          <Flex justify="space-between" align="center" wrap gap={8}>
            <h3>
              {itemName(editing.templateItem)}{' '}
              {editing.isBuiltIn ? `(${label('builtIn')})` : `v${editing.version}`}
            </h3>
            <Space wrap>
              <Select
                value={sampleEntity}
                onChange={setSampleEntity}
                aria-label={label('sampleEntity')}
                style={{ minWidth: 160 }}
                options={['sysregion', 'purchase', 'notice', 'sysuser'].map((value) => ({
                  value,
                  label: value,
                }))}
              />
              <Button onClick={() => void check()} loading={isSending} data-testid="template-check">
                {label('check')}
              </Button>
              <Button
                type="primary"
                onClick={() => void save()}
                loading={isSending}
                data-testid="template-save"
              >
                {t('admin.crud.save')}
              </Button>
            </Space>
          </Flex>
          <Suspense fallback={<Spin />}>
            <TemplateEditor
              key={`${editing.templateItem}-${editing.version}`}
              value={draft}
              onChange={setDraft}
              focusAt={focusAt}
              label={label('content')}
            />
          </Suspense>
          {problems.length > 0 && (
            <Alert
              type="error"
              showIcon
              data-testid="template-problems"
              message={label('problems')}
              description={
                <ul>
                  {problems.map((problem, index) => (
                    <li key={index}>
                      {problem.line !== undefined
                        ? t('codegen.template.at', { line: problem.line, column: problem.column ?? 1 })
                        : ''}{' '}
                      {problem.message}
                    </li>
                  ))}
                </ul>
              }
            />
          )}
          {output !== undefined && problems.length === 0 && (
            <>
              <h3>{label('dryRun')}</h3>
              <CodeView code={output} path="output.ts" testId="template-output" />
            </>
          )}
        </div>
      )}
    </Card>
  );
}
