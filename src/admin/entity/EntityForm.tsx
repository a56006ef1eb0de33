import { useCreate, useOne, useUpdate, type BaseRecord, type HttpError } from '@refinedev/core';
import { generateForm } from '@rjsf/antd';
import type CoreForm from '@rjsf/core';
import type { FormProps } from '@rjsf/core';
import type {
  ErrorSchema,
  FormValidation,
  ObjectFieldTemplateProps,
  RJSFSchema,
  RJSFValidationError,
  UiSchema,
} from '@rjsf/utils';
import { createPrecompiledValidator, type ValidatorFunctions } from '@rjsf/validator-ajv8';
import { Alert, App, Col, Modal, Row, Spin } from 'antd';
import { useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import {
  entryOf,
  fieldMessage,
  formFields,
  formSchemaId,
  formSchemaOf,
  mismatchedConfirmations,
  ruleErrors,
  uiSchemaOf,
  withoutConfirmations,
  type EntityDef,
  type FormMode,
  type MessageField,
} from '../../engine/index.js';
import { useLanguage, useT, type Translate } from '../i18n.js';
import { useMenus } from '../layout/MenuProvider.js';
import { AutoFields } from './AutoFields.js';
import { fieldsSent, withFieldRights } from './field-rights.js';
import { entityTitle, titleOf } from './labels.js';
import { adminModules } from '../lib/admin-modules.js';
import { DetailTableField } from './DetailTableField.js';
import { useSavedByOther } from './useLiveChanges.js';
import {
  addConditionErrors,
  designedContext,
  DESIGNED_TEMPLATES,
  hiddenFields,
  isDesigned,
  visibleErrors,
  withoutHidden,
} from './DesignedLayout.js';

type Values = Record<string, unknown>;

export const Form = generateForm<Values>();

/**
 * The validators of every form, compiled by the server with its own ajv options, formats and
 * vocabulary (GET /api/schemas/validators.js): the page compiles nothing, so its content
 * security policy needs no eval. Loaded once per page load.
 */
const VALIDATORS_URL = '/api/schemas/validators.js';
let validatorFunctions: Promise<ValidatorFunctions> | undefined;
let validatorsRevision = 0;
/**
 * After a form is published or unpublished the entity set changed: the next form loads the
 * module again, under a new address (a module is loaded once per address).
 */
export function forgetValidators(): void {
  validatorFunctions = undefined;
  validatorsRevision += 1;
}
export function loadValidators(): Promise<ValidatorFunctions> {
  const url = validatorsRevision > 0 ? `${VALIDATORS_URL}?r=${validatorsRevision}` : VALIDATORS_URL;
  validatorFunctions ??= (import(/* @vite-ignore */ url) as Promise<ValidatorFunctions>).catch(
    (error: unknown) => {
      validatorFunctions = undefined;
      throw error;
    },
  );
  return validatorFunctions;
}

/**
 * The validator of a form schema from the module the server compiled (validators.js; the CSP
 * allows no eval), undefined while it loads; a failed load is reported once.
 */
export function usePrecompiledValidator(schema: RJSFSchema) {
  const t = useT();
  const { message } = App.useApp();
  const [functions, setFunctions] = useState<ValidatorFunctions | undefined>(undefined);
  useEffect(() => {
    let isCurrent = true;
    loadValidators().then(
      (loaded) => isCurrent && setFunctions(loaded),
      () => isCurrent && void message.error(t('errors.network')),
    );
    return () => {
      isCurrent = false;
    };
  }, [message, t]);
  return useMemo(
    () => (functions ? createPrecompiledValidator<Values>(functions, schema) : undefined),
    [functions, schema],
  );
}

/**
 * Lays the fields out on antd's 24-column grid, each with the span its schema asks for. A narrow
 * field that makes a row with the next one (country code 6 + mobile 18) starts a row of its own,
 * so that the pair is not torn apart.
 */
function GridObjectTemplate(props: ObjectFieldTemplateProps) {
  const ui = props.uiSchema ?? {};
  const spanOf = (name: string | undefined): number =>
    (name && (ui[name] as { 'ui:options'?: { span?: number } } | undefined)?.['ui:options']?.span) || 12;
  const visible = props.properties.filter((property) => !property.hidden);
  const cells: ReactNode[] = [];
  let used = 0;
  visible.forEach((property, index) => {
    const span = spanOf(property.name);
    const next = spanOf(visible[index + 1]?.name);
    if (used > 0 && span < 12 && span + next === 24 && used + span + next > 24) {
      cells.push(<Col key={`${property.name}-break`} span={24 - used} />);
      used = 0;
    }
    if (used + span > 24) used = 0;
    used = (used + span) % 24;
    cells.push(
      <Col key={property.name} span={span}>
        {property.content}
      </Col>,
    );
  });
  return <Row gutter={16}>{cells}</Row>;
}

export const TEMPLATES = { ObjectFieldTemplate: GridObjectTemplate };
export const FIELDS = { detailTable: DetailTableField };

/**
 * ajv's errors as a person filling the form reads them: 请输入用户名, 请选择角色, 请输入正确的邮箱地址
 * (the field's title and how its value is given, engine fieldMessage), in the user's language.
 */
export function translateErrors(t: Translate, fields: ReadonlyMap<string, MessageField>) {
  return (errors: RJSFValidationError[]): RJSFValidationError[] =>
    errors.map((error) => {
      const path = (error.property ?? '').replace(/^\./, '').split('.');
      const name = path[0] ?? '';
      // A detail row's cell (.lines.2.qty): the message names the column.
      const cell = path.length === 3 ? fields.get(`${name}.${path[2] ?? ''}`) : undefined;
      const field = cell ?? fields.get(name) ?? { title: name, entry: 'input' as const };
      const params = (error.params as Record<string, unknown> | undefined) ?? {};
      const message = fieldMessage(error.name ?? 'invalid', params, field);
      return { ...error, message: t(message.key, message.params) };
    });
}

/** The form's schema with every label in the user's language. */
export function translatedSchema(entity: EntityDef, mode: FormMode, t: Translate): RJSFSchema {
  const schema = { ...formSchemaOf(entity, mode), $id: formSchemaId(entity.name, mode) } as RJSFSchema;
  const properties = (schema.properties ?? {}) as Record<string, RJSFSchema>;
  const titles = new Map<string, string>();
  for (const field of formFields(entity, mode)) {
    const title = field.options.confirms
      ? t('admin.form.confirmField', { field: titles.get(field.options.confirms) ?? field.options.confirms })
      : titleOf(t, field.titleKeys, field.fallbackTitle);
    titles.set(field.name, title);
    const property = properties[field.name];
    if (!property) continue;
    // A schema's description is English; it shows only where a translation exists.
    const { description: _english, ...rest } = property;
    const help = t(`entities.${entity.name}.help.${field.name}`, { defaultValue: '' });
    properties[field.name] = { ...rest, title, ...(help ? { description: help } : {}) };
  }
  return schema;
}

/** The fields of a form as its error messages name them (title, how the value is given), by name. */
export function messageFieldsOf(
  entity: EntityDef,
  mode: FormMode,
  schema: RJSFSchema,
  t: Translate,
): Map<string, MessageField> {
  const properties = (schema.properties ?? {}) as Record<string, RJSFSchema>;
  const entries = formFields(entity, mode).flatMap((field): [string, MessageField][] => [
    [
      field.name,
      { title: String(properties[field.name]?.title ?? field.name), entry: entryOf(field.widget) },
    ],
    ...(field.options.columns ?? []).map((column): [string, MessageField] => [
      `${field.name}.${column.name}`,
      { title: titleOf(t, column.titleKeys, column.fallbackTitle), entry: entryOf(column.widget) },
    ]),
  ]);
  return new Map(entries);
}

/** A record as form data: nulls left out (they are "no value", which the form shows as empty). */
export function formDataOf(entity: EntityDef, mode: FormMode, record: BaseRecord | undefined): Values {
  if (!record) return {};
  const names = new Set(formFields(entity, mode).map((field) => field.name));
  return Object.fromEntries(
    Object.entries(record).filter(
      ([name, value]) => names.has(name) && value !== null && value !== undefined,
    ),
  );
}

/** Brings the first field that needs attention into view (a long form hides it below the fold). */
export function focusFirstError(errors: RJSFValidationError[]): void {
  const name = (errors[0]?.property ?? '').replace(/^\./, '');
  if (name) document.getElementById(`root_${name}`)?.scrollIntoView({ block: 'center' });
}

/** Server field errors ({field: [messages]}, dotted names) as RJSF's error schema. */
export function extraErrorsOf(errors: HttpError['errors']): ErrorSchema<Values> | undefined {
  if (!errors) return undefined;
  const schema: Record<string, { __errors: string[] }> = {};
  for (const [field, messages] of Object.entries(errors)) {
    const list = Array.isArray(messages) ? messages : typeof messages === 'string' ? [messages] : [];
    if (list.length === 0) continue;
    const [name = field, row, column] = field.split('.');
    if (row !== undefined && column !== undefined && /^\d+$/.test(row)) {
      // A detail row's cell (lines.2.qty): on its cell of the detail table.
      const rows = (schema[name] ??= { __errors: [] }) as unknown as Record<string, Record<string, unknown>>;
      (rows[row] ??= {})[column] = { __errors: list.map(String) };
    } else schema[name] = { __errors: list.map(String) };
  }
  return Object.keys(schema).length > 0 ? (schema as ErrorSchema<Values>) : undefined;
}

/**
 * The RJSF wiring every form of an entity shares, the entity's own create/edit form and a process's
 * form (WfForm): the schema in the user's language, the validators the server compiled, the ui
 * schema with the caller's field rights, a designed form's layout and conditional fields, and the
 * server's checks (confirm fields, cross-field rules, conditionally required fields) with its
 * messages. `props` (undefined while the validators load) go on <Form>; `kept` is what the form
 * keeps of the values it hands over (a hidden field keeps no value: the server would refuse it).
 */
export function useEntityForm(entity: EntityDef, mode: FormMode, formData: Values) {
  const t = useT();
  const language = useLanguage();
  const schema = useMemo(() => translatedSchema(entity, mode, t), [entity, mode, t]);
  const messageFields = useMemo(() => messageFieldsOf(entity, mode, schema, t), [entity, mode, schema, t]);
  const validator = usePrecompiledValidator(schema);
  // The caller's field rights: hidden fields not shown nor sent, read-only ones disabled.
  const rights = useMenus().fieldRights[entity.name];
  const uiSchema = useMemo(
    (): UiSchema<Values> =>
      withFieldRights<Values>(
        {
          ...adminModules.uiSchemaFor(entity, uiSchemaOf(entity, mode) as UiSchema<Values>),
          'ui:submitButtonOptions': { norender: true },
        },
        rights,
      ),
    [entity, mode, rights],
  );
  // A designed form (a published one): its layout, and fields shown only while a condition holds.
  const isDesignedForm = isDesigned(entity.schema);
  const hidden = useMemo(
    () => (isDesignedForm ? hiddenFields(entity.schema, formData) : new Set<string>()),
    [isDesignedForm, entity, formData],
  );
  const formContext = useMemo(
    () =>
      isDesignedForm
        ? designedContext(entity.schema, {
            items: entity.schema['x-ui']?.items,
            hidden,
            spans: new Map(formFields(entity, mode).map((field) => [field.name, field.options.span])),
            language,
            isNarrow: false,
          })
        : undefined,
    [isDesignedForm, entity, mode, hidden, language],
  );
  const translate = useMemo(() => translateErrors(t, messageFields), [t, messageFields]);
  const transformErrors = useCallback(
    (errors: RJSFValidationError[]) => translate(visibleErrors(hidden, errors)),
    [translate, hidden],
  );
  const customValidate = useCallback(
    (values: Values | undefined, errors: FormValidation<Values>): FormValidation<Values> => {
      const fieldErrors = errors as unknown as Record<
        string,
        { addError: (text: string) => void } | undefined
      >;
      for (const field of mismatchedConfirmations(entity, mode, values ?? {}))
        fieldErrors[field]?.addError(t('admin.form.mismatch'));
      // Cross-field rules (x-rules), the same the server checks: the message under each field named.
      for (const error of ruleErrors(entity.schema, values ?? {}, (key, params) => t(key, params)))
        fieldErrors[error.field.replace(/^\//, '')]?.addError(error.message);
      return addConditionErrors(entity.schema, hidden, values, errors, (name) => {
        const message = fieldMessage(
          'required',
          {},
          messageFields.get(name) ?? { title: name, entry: 'input' },
        );
        return t(message.key, message.params);
      });
    },
    [entity, mode, t, hidden, messageFields],
  );
  const kept = useCallback(
    (values: Values | undefined): Values =>
      isDesignedForm ? withoutHidden(entity.schema, values ?? {}) : (values ?? {}),
    [isDesignedForm, entity],
  );
  // Built on every render, as <Form>'s props were: a module's widgets may register meanwhile.
  const props: FormProps<Values> | undefined = validator && {
    schema,
    uiSchema,
    validator,
    widgets: adminModules.widgets(),
    fields: FIELDS,
    templates: isDesignedForm ? DESIGNED_TEMPLATES : TEMPLATES,
    ...(formContext ? { formContext } : {}),
    transformErrors,
    customValidate,
    showErrorList: false,
    noHtml5Validate: true,
    liveValidate: 'onBlur',
    // The errors stand under their fields; without this RJSF also logs them as console errors.
    onError: focusFirstError,
  };
  return { props, rights, kept };
}

export interface EntityFormProps {
  entity: EntityDef;
  mode: FormMode;
  /** The record to edit (update mode). */
  record?: BaseRecord;
  onClose: (hasSaved: boolean) => void;
}

/**
 * The generated create/edit form of an entity, in a modal: RJSF with the antd theme, from the
 * same schema and with the same ajv options as the server; server 400/409 errors on their fields.
 */
/**
 * An entity with detail (x-detail) fields is edited from its detail read (a query by the key),
 * which carries the rows a list row does not.
 */
export default function EntityForm(props: EntityFormProps) {
  const t = useT();
  const { entity, mode, record } = props;
  const key = record?.[entity.key.name] as string | number | undefined;
  const needsRead = mode === 'update' && key !== undefined && entity.fields.some((field) => field.detail);
  const { result } = useOne<BaseRecord>({
    resource: entity.name,
    id: key ?? '',
    queryOptions: { enabled: needsRead, gcTime: 0 },
  });
  if (needsRead && !result) {
    return (
      <Modal
        open
        width={860}
        title={t('admin.crud.editTitle', { entity: entityTitle(t, entity.name, entity.title) })}
        footer={null}
        onCancel={() => props.onClose(false)}
      >
        <Spin />
      </Modal>
    );
  }
  return <EntityFormBody {...props} record={needsRead ? result : record} />;
}

function EntityFormBody({ entity, mode, record, onClose }: EntityFormProps) {
  const t = useT();
  const { message } = App.useApp();
  const formRef = useRef<CoreForm<Values>>(null);
  const initial = useMemo(() => formDataOf(entity, mode, record), [entity, mode, record]);
  // Controlled: RJSF hands the values over when a field commits (not per keystroke, see widgets.tsx).
  const [formData, setFormData] = useState<Values>(initial);
  const form = useEntityForm(entity, mode, formData);
  const { rights } = form;
  const [extraErrors, setExtraErrors] = useState<ErrorSchema<Values> | undefined>(undefined);
  const { mutateAsync: create, mutation: creating } = useCreate();
  const { mutateAsync: update, mutation: updating } = useUpdate();
  // 编辑期间他人已保存: someone else saved (or deleted) the record after the version the form holds.
  const [otherSave, setOtherSave] = useState<'updated' | 'deleted' | undefined>();
  const recordKey = mode === 'update' && record ? record[entity.key.name] : undefined;
  useSavedByOther(
    entity.name,
    recordKey === undefined || recordKey === null ? undefined : String(recordKey),
    typeof record?.version === 'number' ? record.version : undefined,
    setOtherSave,
  );

  const submit = async (formValues: Values): Promise<void> => {
    const values = fieldsSent(formValues, rights);
    setExtraErrors(undefined);
    const notify = { successNotification: false as const, errorNotification: false as const };
    try {
      if (mode === 'create') {
        await create({
          resource: entity.name,
          values: withoutConfirmations(entity, mode, values),
          ...notify,
        });
      } else if (record) {
        // A field the record had and the form emptied is cleared on the server.
        const cleared = Object.keys(initial).filter((name) => values[name] === undefined);
        await update({
          resource: entity.name,
          id: record[entity.key.name] as string | number,
          values: {
            ...values,
            ...Object.fromEntries(cleared.map((name) => [name, null])),
            version: record.version,
          },
          ...notify,
        });
      }
      void message.success(t('admin.crud.saved'));
      onClose(true);
    } catch (error) {
      const errors = extraErrorsOf((error as HttpError).errors);
      if (errors) setExtraErrors(errors);
    }
  };

  const name = entityTitle(t, entity.name, entity.title);
  return (
    <Modal
      open
      width={860}
      title={t(mode === 'create' ? 'admin.crud.createTitle' : 'admin.crud.editTitle', { entity: name })}
      okText={t('admin.crud.save')}
      cancelText={t('admin.common.cancel')}
      confirmLoading={creating.isPending || updating.isPending}
      // until the validators arrive the form is a spinner: a click then would be lost
      okButtonProps={{ disabled: !form.props }}
      onOk={() => formRef.current?.submit()}
      onCancel={() => onClose(false)}
      destroyOnHidden
      maskClosable={false}
      className="entity-form-modal"
    >
      {otherSave ? (
        <Alert
          className="entity-live-notice"
          type="warning"
          showIcon
          message={t(otherSave === 'deleted' ? 'admin.live.deletedByOther' : 'admin.live.savedByOther')}
          {...(otherSave === 'updated' ? { description: t('admin.live.savedByOtherHint') } : {})}
          data-testid="saved-by-other"
        />
      ) : null}
      {form.props ? (
        <Form
          {...form.props}
          ref={formRef}
          formData={formData}
          onChange={(event) => setFormData(form.kept(event.formData))}
          extraErrors={extraErrors}
          onSubmit={(event) => void submit(event.formData ?? {})}
          data-testid="entity-form"
        />
      ) : (
        <Spin />
      )}
      {/* what the server sets (x-auto: an existing record's; x-computed: as the user types), read-only */}
      {form.props ? (
        <AutoFields entity={entity} record={mode === 'update' ? record : undefined} values={formData} />
      ) : null}
    </Modal>
  );
}
