import { useDataProvider, type HttpError } from '@refinedev/core';
import { App, Button, Card, Form, Input, Modal, Select, Space, Table, Tag } from 'antd';
import { useRef, useState } from 'react';
import { useNavigate } from 'react-router';
import { formatDateTime } from '../../../../web/format.js';
import { routeTitle, useT } from '../../../i18n.js';
import type { AppRoute } from '../../../lib/menus.js';
import { errorText } from '../../../providers/data.js';
import { showFieldErrors } from '../../../lib/form-errors.js';
import { useApiGet, useApiWrite, useCanButton, withQuery } from '../../../lib/api.js';
import { saveFile } from '../../../entity/file-api.js';
import {
  freeCopyKey,
  MODEL_API,
  modelInput,
  processOf,
  withProcessKey,
  type DeployAnswer,
  type ModelRecord,
} from './model-api.js';
import { useFormOptions, withCurrent } from './useFormOptions.js';

import '../../../entity/entity.css';

const PAGE_SIZE = 20;

interface Filters {
  name?: string;
  key?: string;
  category?: string;
}

type Editing = { mode: 'create' } | { mode: 'update'; record: ModelRecord } | undefined;

/**
 * /model (docs/product.md §2.3 workflow): the process models in the generated-list look (filter bar,
 * toolbar, checked rows), with design, deploy, export and import of BPMN XML, and copy.
 * Buttons follow the menu's grants: import and copy create models, so they go with 新增.
 */
export default function ModelList({ route }: { route: AppRoute }) {
  const t = useT();
  const navigate = useNavigate();
  const { message, modal } = App.useApp();
  const can = useCanButton(route.code);
  const [page, setPage] = useState(1);
  const [filters, setFilters] = useState<Filters>({});
  const [selected, setSelected] = useState<number[]>([]);
  const [editing, setEditing] = useState<Editing>();
  const fileRef = useRef<HTMLInputElement>(null);
  const [filterForm] = Form.useForm<Filters>();
  const models = useApiGet<{ records: ModelRecord[]; total: number }>(`${MODEL_API}/query`, {
    currentPage: page,
    pageSize: PAGE_SIZE,
    ...Object.fromEntries(Object.entries(filters).filter(([, value]) => value)),
  });
  const { send } = useApiWrite();
  const records = models.data?.records ?? [];
  const refresh = (): void => void models.refetch();
  const label = (field: string): string => t(`workflow.model.fields.${field}`);

  /** The one checked model, or the catalogue's warning (docs/product.md §8). */
  const one = (): ModelRecord | undefined => {
    const checked = records.filter((record) => selected.includes(record.id));
    if (checked.length === 0) void message.warning(t('admin.crud.checkRecord'));
    else if (checked.length > 1) void message.warning(t('admin.crud.onlyOne'));
    return checked.length === 1 ? checked[0] : undefined;
  };
  const run = async (write: () => Promise<unknown>, success: string): Promise<boolean> => {
    try {
      await write();
      void message.success(success);
      refresh();
      return true;
    } catch (error) {
      void message.error(errorText(error));
      return false;
    }
  };
  const design = (record = one()): void => {
    if (record) navigate(`/processdesign?${new URLSearchParams({ id: String(record.id) }).toString()}`);
  };
  const deploy = (): void => {
    const record = one();
    if (!record) return;
    void (async () => {
      try {
        const answer = await send<DeployAnswer>('post', withQuery(`${MODEL_API}/deploy`, { id: record.id }));
        void message.success(t('workflow.modeler.deployed', { key: answer.key, version: answer.version }));
        refresh();
      } catch (error) {
        void message.error(errorText(error));
      }
    })();
  };
  const remove = (): void => {
    if (selected.length === 0) {
      void message.warning(t('admin.crud.checkToDelete'));
      return;
    }
    modal.confirm({
      title: t('admin.crud.confirmTitle'),
      content: t(selected.length === 1 ? 'admin.crud.confirmDeleteOne' : 'admin.crud.confirmDeleteMany'),
      okText: t('admin.common.confirm'),
      cancelText: t('admin.common.cancel'),
      onOk: async () => {
        if (
          await run(
            () => send('post', withQuery(`${MODEL_API}/delete`, { id: selected })),
            t('admin.crud.deleted'),
          )
        )
          setSelected([]);
      },
    });
  };
  const dataProvider = useDataProvider()();
  /** Whether a model with this key exists in the tenant (model/query filters the key exactly). */
  const keyTaken = async (key: string): Promise<boolean> => {
    if (!dataProvider.custom) return false;
    const answer = await dataProvider.custom<{ total: number }>({
      url: `${MODEL_API}/query`,
      method: 'get',
      query: { key, currentPage: 1, pageSize: 1 },
    });
    return answer.data.total > 0;
  };
  const fetchXml = async (id: number): Promise<string | null> => {
    if (!dataProvider.custom) return null;
    const answer = await dataProvider.custom<{ xml: string | null }>({
      url: `${MODEL_API}/xml`,
      method: 'get',
      query: { id },
    });
    return answer.data.xml;
  };
  const exportModel = async (): Promise<void> => {
    const record = one();
    if (!record) return;
    const xml = await fetchXml(record.id);
    if (!xml) {
      void message.warning(t('workflow.model.noDiagram'));
      return;
    }
    saveFile({ fileName: `${record.key}.bpmn20.xml`, blob: new Blob([xml], { type: 'application/xml' }) });
  };
  /** model/import: the model and its diagram in one call, so a refused file leaves nothing. */
  const importModel = (values: Record<string, unknown>, options: { silent?: boolean } = {}) =>
    send<ModelRecord>('post', `${MODEL_API}/import`, values, options);
  const copy = (): void => {
    const record = one();
    if (!record) return;
    void (async () => {
      const key = await freeCopyKey(record.key, keyTaken);
      const xml = await fetchXml(record.id);
      const values = { ...modelInput(record), key, name: `${record.name}${t('workflow.model.copySuffix')}` };
      await run(
        () =>
          xml
            ? importModel({ ...values, xml: withProcessKey(xml, record.key, key) })
            : send('post', `${MODEL_API}/add`, values),
        t('workflow.model.copied'),
      );
    })();
  };
  const importFile = async (file: File): Promise<void> => {
    const xml = await file.text();
    const process = processOf(xml);
    if (!process) {
      void message.error(t('workflow.model.badFile'));
      return;
    }
    const values = { name: process.name, key: process.key, xml };
    const done = t('workflow.model.imported', { key: process.key });
    try {
      await importModel(values, { silent: true });
      void message.success(done);
      refresh();
    } catch (error) {
      if ((error as Partial<HttpError> | undefined)?.statusCode !== 409) {
        void message.error(errorText(error));
        return;
      }
      // the key exists: replacing that model's diagram is the user's choice (docs/product.md §8 confirm)
      modal.confirm({
        title: t('workflow.model.replaceTitle'),
        content: t('workflow.model.replaceContent', { key: process.key }),
        okText: t('workflow.model.replace'),
        cancelText: t('admin.common.cancel'),
        onOk: () => run(() => importModel({ ...values, replace: true }), done),
      });
    }
  };

  return (
    <Card title={routeTitle(route)} className="admin-page entity-list" data-testid="page-title">
      <Form<Filters>
        form={filterForm}
        layout="inline"
        className="entity-filter-bar"
        data-testid="filter-bar"
        onFinish={(values) => {
          setFilters({
            name: values.name?.trim(),
            key: values.key?.trim(),
            category: values.category?.trim(),
          });
          setPage(1);
        }}
      >
        {(['name', 'key', 'category'] as const).map((field) => (
          <Form.Item key={field} name={field} label={label(field)} data-filter={field}>
            <Input allowClear placeholder={t('admin.crud.inputPlaceholder', { field: label(field) })} />
          </Form.Item>
        ))}
        <Form.Item>
          <Space>
            <Button type="primary" htmlType="submit" data-testid="filter-search">
              {t('admin.crud.search')}
            </Button>
            <Button
              data-testid="filter-reset"
              onClick={() => {
                filterForm.resetFields();
                filterForm.submit();
              }}
            >
              {t('admin.crud.reset')}
            </Button>
          </Space>
        </Form.Item>
      </Form>
      <Space className="entity-toolbar" wrap data-testid="entity-toolbar">
        {can('add') ? (
          <Button type="primary" onClick={() => setEditing({ mode: 'create' })} data-testid="entity-add">
            {t('admin.crud.add')}
          </Button>
        ) : null}
        {can('update') ? (
          <Button
            onClick={() => {
              const record = one();
              if (record) setEditing({ mode: 'update', record });
            }}
            data-testid="entity-edit"
          >
            {t('admin.crud.edit')}
          </Button>
        ) : null}
        {can('delete') ? (
          <Button danger onClick={remove} data-testid="entity-delete">
            {t('admin.crud.delete')}
          </Button>
        ) : null}
        {can('design') ? (
          <Button onClick={() => design()} data-testid="model-design">
            {t('workflow.model.design')}
          </Button>
        ) : null}
        {can('deploy') ? (
          <Button onClick={deploy} data-testid="model-deploy">
            {t('workflow.model.deploy')}
          </Button>
        ) : null}
        {can('export') ? (
          <Button onClick={() => void exportModel()} data-testid="model-export">
            {t('workflow.model.exportXml')}
          </Button>
        ) : null}
        {can('add') ? (
          <>
            <Button onClick={() => fileRef.current?.click()} data-testid="model-import">
              {t('workflow.model.importXml')}
            </Button>
            <Button onClick={copy} data-testid="model-copy">
              {t('workflow.model.copy')}
            </Button>
          </>
        ) : null}
        <Button onClick={refresh} data-testid="entity-refresh">
          {t('admin.crud.refresh')}
        </Button>
        {selected.length > 0 ? (
          <span className="entity-checked">{t('admin.crud.checked', { count: selected.length })}</span>
        ) : null}
      </Space>
      <input
        ref={fileRef}
        type="file"
        hidden
        accept=".xml,.bpmn"
        aria-label={t('workflow.model.importXml')}
        data-testid="model-import-file"
        onChange={(event) => {
          const file = event.target.files?.[0];
          event.target.value = '';
          if (file) void importFile(file);
        }}
      />
      <Table<ModelRecord>
        size="middle"
        rowKey="id"
        loading={models.isLoading}
        dataSource={records}
        scroll={{ x: 'max-content' }}
        data-testid="entity-table"
        rowSelection={{
          selectedRowKeys: selected,
          onChange: (keys) => setSelected(keys.map(Number)),
          getCheckboxProps: (record) => ({ title: t('admin.crud.selectRow', { label: record.name }) }),
        }}
        onRow={(record) => ({ onDoubleClick: () => can('design') && design(record) })}
        pagination={{
          current: page,
          pageSize: PAGE_SIZE,
          total: models.data?.total ?? 0,
          showSizeChanger: false,
          onChange: setPage,
          showTotal: (total) => t('admin.crud.total', { total }),
        }}
        columns={[
          { key: 'name', dataIndex: 'name', title: label('name') },
          { key: 'key', dataIndex: 'key', title: label('key') },
          { key: 'category', dataIndex: 'category', title: label('category') },
          {
            key: 'version',
            dataIndex: 'version',
            title: label('version'),
            render: (version: number | null) =>
              version ? <Tag color="green">v{version}</Tag> : <Tag>{t('workflow.model.notDeployed')}</Tag>,
          },
          { key: 'revision', dataIndex: 'revision', title: label('revision') },
          {
            key: 'hasXml',
            dataIndex: 'hasXml',
            title: label('hasXml'),
            render: (hasXml: boolean) => t(hasXml ? 'admin.crud.yes' : 'admin.crud.no'),
          },
          {
            key: 'deploymentTime',
            dataIndex: 'deploymentTime',
            title: label('deploymentTime'),
            render: (value: string | null) => (value ? formatDateTime(value) : ''),
          },
          {
            key: 'updateTime',
            dataIndex: 'updateTime',
            title: label('updateTime'),
            render: (value: string) => formatDateTime(value),
          },
        ]}
      />
      {editing ? (
        <ModelForm
          editing={editing}
          onClose={(hasSaved) => {
            setEditing(undefined);
            if (hasSaved) refresh();
          }}
        />
      ) : null}
    </Card>
  );
}

/** 新增 / 编辑 of a model: name, key (the BPMN process id), category, description and its form (usedForm). */
function ModelForm({
  editing,
  onClose,
}: {
  editing: NonNullable<Editing>;
  onClose: (hasSaved: boolean) => void;
}) {
  const t = useT();
  const { message } = App.useApp();
  const { send, isSending } = useApiWrite();
  const [form] = Form.useForm<{
    name: string;
    key: string;
    category?: string;
    description?: string;
    usedForm?: string;
  }>();
  const formOptions = useFormOptions();
  const usedForm = Form.useWatch('usedForm', form);
  const record = editing.mode === 'update' ? editing.record : undefined;
  const label = (field: string): string => t(`workflow.model.fields.${field}`);
  const save = async (): Promise<void> => {
    // an invalid field is shown at the field by the form: nothing to send, nothing thrown
    const values = await form.validateFields().catch(() => undefined);
    if (!values) return;
    try {
      if (record)
        await send('put', `${MODEL_API}/update`, {
          ...modelInput(record),
          ...values,
          // a cleared select is undefined: the model's form is then none
          usedForm: values.usedForm ?? '',
          id: record.id,
          revision: record.revision,
        });
      else await send('post', `${MODEL_API}/add`, { ...values, usedForm: values.usedForm ?? '' });
      void message.success(t('admin.crud.saved'));
      onClose(true);
    } catch (error) {
      if (!showFieldErrors(form, ['name', 'key', 'category', 'description', 'usedForm'], error))
        void message.error(errorText(error));
    }
  };
  return (
    <Modal
      open
      // the generated lists' create/edit form look (and what the accessibility sweep opens)
      className="entity-form-modal"
      title={
        record
          ? t('admin.crud.editTitle', { entity: t('workflow.model.entity') })
          : t('admin.crud.createTitle', { entity: t('workflow.model.entity') })
      }
      onCancel={() => onClose(false)}
      onOk={() => void save()}
      okText={t('admin.crud.save')}
      cancelText={t('admin.common.cancel')}
      confirmLoading={isSending}
      destroyOnHidden
    >
      <Form
        form={form}
        layout="vertical"
        initialValues={record ? { ...modelInput(record), usedForm: record.usedForm ?? undefined } : {}}
        data-testid="model-form"
      >
        <Form.Item
          name="name"
          label={label('name')}
          rules={[
            { required: true, message: t('workflow.model.required', { field: label('name') }) },
            { max: 100 },
          ]}
        >
          <Input />
        </Form.Item>
        <Form.Item
          name="key"
          label={label('key')}
          extra={t('workflow.model.keyHint')}
          rules={[
            { required: true, message: t('workflow.model.required', { field: label('key') }) },
            { pattern: /^[A-Za-z_][A-Za-z0-9_.-]{0,99}$/, message: t('workflow.model.keyPattern') },
          ]}
        >
          <Input />
        </Form.Item>
        <Form.Item name="category" label={label('category')} rules={[{ max: 100 }]}>
          <Input />
        </Form.Item>
        <Form.Item name="description" label={label('description')} rules={[{ max: 512 }]}>
          <Input.TextArea rows={3} />
        </Form.Item>
        <Form.Item name="usedForm" label={label('usedForm')} extra={t('workflow.model.usedFormHint')}>
          <Select
            allowClear
            showSearch
            optionFilterProp="label"
            options={withCurrent(formOptions, usedForm)}
            placeholder={t('workflow.model.usedFormPlaceholder')}
            data-testid="model-used-form"
            popupClassName="model-used-form-popup"
          />
        </Form.Item>
      </Form>
    </Modal>
  );
}
