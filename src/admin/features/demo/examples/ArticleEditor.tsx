import { useCreate, useOne, useUpdate, type HttpError } from '@refinedev/core';
import type CoreForm from '@rjsf/core';
import type { ErrorSchema, UiSchema } from '@rjsf/utils';
import { App, Button, Flex, Result, Spin } from 'antd';
import { useMemo, useRef, useState } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { uiSchemaOf, type EntityDef, type FormMode } from '../../../../engine/index.js';
import {
  extraErrorsOf,
  FIELDS,
  focusFirstError,
  Form,
  formDataOf,
  messageFieldsOf,
  TEMPLATES,
  translatedSchema,
  translateErrors,
  usePrecompiledValidator,
} from '../../../entity/EntityForm.js';
import { useEntity } from '../../../entity/resources.js';
import { adminModules } from '../../../lib/admin-modules.js';
import { useT } from '../../../i18n.js';
import type { AppRoute } from '../../../lib/menus.js';
import { ARTICLE, type Article } from './article.js';
import { DemoPage } from './parts.js';

type Values = Record<string, unknown>;

/**
 * /example/create and /example/edit/:id (digits only; the route table sends any other value to
 * 404): the article's generated form on a page of its own, checked in the browser by the
 * server-compiled validator and on the server by the same schema.
 */
export default function ArticleEditor({ route }: { route: AppRoute }) {
  const t = useT();
  const entity = useEntity(ARTICLE);
  const location = useLocation();
  const isEdit = route.component === 'demo/example/edit';
  const id = isEdit ? (location.pathname.split('/').at(-1) ?? '') : '';
  const { result, query } = useOne<Article, HttpError>({
    resource: ARTICLE,
    id,
    queryOptions: { enabled: isEdit && id !== '', gcTime: 0, retry: false },
  });
  let body;
  if (!entity || (isEdit && query.isLoading)) body = <Spin className="admin-page-spin" />;
  else if (isEdit && (query.isError || !result))
    body = (
      <Result
        status="404"
        title="404"
        subTitle={t('examples.editor.notFound', { id })}
        data-testid="article-missing"
      />
    );
  else
    body = (
      <ArticleForm
        key={isEdit ? `${id}-${String(result?.version)}` : 'create'}
        entity={entity}
        mode={isEdit ? 'update' : 'create'}
        record={isEdit ? result : undefined}
        onSaved={() => void query.refetch()}
      />
    );
  return (
    <DemoPage route={route} intro={t(isEdit ? 'examples.editor.editIntro' : 'examples.editor.createIntro')}>
      {body}
    </DemoPage>
  );
}

function ArticleForm({
  entity,
  mode,
  record,
  onSaved,
}: {
  entity: EntityDef;
  mode: FormMode;
  record: Article | undefined;
  onSaved: () => void;
}) {
  const t = useT();
  const { message } = App.useApp();
  const navigate = useNavigate();
  const formRef = useRef<CoreForm<Values>>(null);
  const schema = useMemo(() => translatedSchema(entity, mode, t), [entity, mode, t]);
  const validator = usePrecompiledValidator(schema);
  const transformErrors = useMemo(
    () => translateErrors(t, messageFieldsOf(entity, mode, schema, t)),
    [entity, mode, schema, t],
  );
  const uiSchema = useMemo(
    (): UiSchema<Values> => ({
      ...adminModules.uiSchemaFor(entity, uiSchemaOf(entity, mode) as UiSchema<Values>),
      'ui:submitButtonOptions': { norender: true },
    }),
    [entity, mode],
  );
  const initial = useMemo(() => formDataOf(entity, mode, record), [entity, mode, record]);
  const [formData, setFormData] = useState<Values>(initial);
  const [extraErrors, setExtraErrors] = useState<ErrorSchema<Values> | undefined>(undefined);
  const { mutateAsync: create, mutation: creating } = useCreate<Article>();
  const { mutateAsync: update, mutation: updating } = useUpdate<Article>();

  const submit = async (values: Values): Promise<void> => {
    setExtraErrors(undefined);
    const notify = { successNotification: false as const, errorNotification: false as const };
    try {
      if (mode === 'create') {
        const created = await create({ resource: ARTICLE, values, ...notify });
        void message.success(t('examples.editor.created'));
        // the create page stays open in its tab: empty for the next article
        setFormData({});
        void navigate(`/example/edit/${String(created.data.id)}`);
      } else if (record) {
        const cleared = Object.keys(initial).filter((name) => values[name] === undefined);
        await update({
          resource: ARTICLE,
          id: record.id,
          values: {
            ...values,
            ...Object.fromEntries(cleared.map((name) => [name, null])),
            version: record.version,
          },
          ...notify,
        });
        void message.success(t('admin.crud.saved'));
        onSaved();
      }
    } catch (error) {
      const errors = extraErrorsOf((error as HttpError).errors);
      if (errors) setExtraErrors(errors);
    }
  };

  if (!validator) return <Spin className="admin-page-spin" />;
  return (
    <div data-testid="article-form">
      <Form
        ref={formRef}
        schema={schema}
        uiSchema={uiSchema}
        formData={formData}
        onChange={(event) => setFormData(event.formData ?? {})}
        validator={validator}
        widgets={adminModules.widgets()}
        fields={FIELDS}
        templates={TEMPLATES}
        transformErrors={transformErrors}
        extraErrors={extraErrors}
        showErrorList={false}
        noHtml5Validate
        liveValidate="onBlur"
        onSubmit={(event) => void submit(event.formData ?? {})}
        onError={focusFirstError}
      />
      <Flex gap={8} justify="flex-end">
        <Button onClick={() => void navigate('/example/list')}>{t('examples.editor.back')}</Button>
        <Button
          type="primary"
          loading={creating.isPending || updating.isPending}
          onClick={() => formRef.current?.submit()}
          data-testid="article-save"
        >
          {t('admin.crud.save')}
        </Button>
      </Flex>
    </div>
  );
}
