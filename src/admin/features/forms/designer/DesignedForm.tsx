import { useCustomMutation } from '@refinedev/core';
import { generateForm } from '@rjsf/antd';
import type CoreForm from '@rjsf/core';
import type { FormValidation, RJSFSchema, RJSFValidationError, UiSchema } from '@rjsf/utils';
import { createPrecompiledValidator, type ValidatorFunctions } from '@rjsf/validator-ajv8';
import { Alert, Button, Space, Spin } from 'antd';
import { useEffect, useMemo, useRef, useState } from 'react';
import {
  buildEntity,
  entryOf,
  fieldMessage,
  formFields,
  formSchemaId,
  formSchemaOf,
  uiSchemaOf,
  type DetailColumn,
  type EntitySchema,
  type FieldSchema,
  type MessageField,
} from '../../../../engine/index.js';
import { useLanguage, useT } from '../../../i18n.js';
import { DetailTableField } from '../../../entity/DetailTableField.js';
import { adminModules } from '../../../lib/admin-modules.js';
import {
  addConditionErrors,
  designedContext,
  DESIGNED_TEMPLATES,
  hiddenFields,
  titleIn,
  visibleErrors,
  withoutHidden,
  type DesignedLayout,
} from '../../../entity/DesignedLayout.js';

type Values = Record<string, unknown>;

const Form = generateForm<Values>();
/** The generated screens' fields: a sub-table (x-detail) is the same editable table as there. */
const FIELDS = { detailTable: DetailTableField };

/** The name a designed form is compiled under (the server's preview route uses the same). */
export const PREVIEW_ENTITY = 'formpreview';

export interface DesignedFormProps {
  schema: EntitySchema;
  /** Narrow (phone) width: every field takes the whole row. */
  isNarrow?: boolean;
}

/**
 * A designed form as its generated screen will show it: the engine's form schema and widgets,
 * RJSF with antd, and validators the server compiled for this schema (POST
 * generator/form/validator, the code of /api/schemas/validators.js). Hidden fields (their
 * visibility condition fails) are not shown and their values are cleared.
 */
export default function DesignedForm({ schema, isNarrow = false }: DesignedFormProps) {
  const t = useT();
  const language = useLanguage();
  const formRef = useRef<CoreForm<Values>>(null);
  const built = useMemo(() => {
    try {
      const entity = buildEntity(PREVIEW_ENTITY, schema);
      const formSchema = {
        ...formSchemaOf(entity, 'create'),
        $id: formSchemaId(PREVIEW_ENTITY, 'create'),
      } as RJSFSchema;
      const properties = (formSchema.properties ?? {}) as Record<string, RJSFSchema>;
      for (const [name, property] of Object.entries(properties)) {
        const source = schema.properties[name];
        const { description: _english, ...rest } = property;
        const help = source?.['x-ui']?.help;
        properties[name] = {
          ...rest,
          title: source
            ? titleIn({ title: source.title ?? name, titles: source['x-ui']?.titles }, language)
            : name,
          ...(help ? { description: help } : {}),
        };
      }
      const ui = adminModules.uiSchemaFor(entity, uiSchemaOf(entity, 'create') as UiSchema<Values>);
      // A sub-table's columns under their designed titles (the generated screens read them from
      // the published entity's locale keys, which a preview has not got).
      for (const [name, property] of Object.entries(schema.properties)) {
        const rows = (property.items ?? {}) as { properties?: Record<string, FieldSchema> };
        const options = (ui[name] as { 'ui:options'?: { columns?: DetailColumn[] } } | undefined)?.[
          'ui:options'
        ];
        if (!rows.properties || !options?.columns) continue;
        options.columns = options.columns.map((column) => {
          const source = rows.properties?.[column.name];
          return source
            ? {
                ...column,
                fallbackTitle: titleIn(
                  { title: source.title ?? column.name, titles: source['x-ui']?.titles },
                  language,
                ),
              }
            : column;
        });
      }
      const spans = new Map(formFields(entity, 'create').map((field) => [field.name, field.options.span]));
      const messageFields = new Map(
        formFields(entity, 'create').map((field): [string, MessageField] => [
          field.name,
          { title: String(properties[field.name]?.title ?? field.name), entry: entryOf(field.widget) },
        ]),
      );
      return { formSchema, ui, spans, messageFields, error: undefined };
    } catch (error) {
      return { error: error instanceof Error ? error.message : String(error) };
    }
  }, [schema, language]);

  const { mutateAsync: compile } = useCustomMutation<{ module: string }>();
  const [functions, setFunctions] = useState<ValidatorFunctions | undefined>(undefined);
  const [compileError, setCompileError] = useState<string | undefined>(undefined);
  useEffect(() => {
    let isCurrent = true;
    setFunctions(undefined);
    setCompileError(undefined);
    compile({
      url: '/api/generator/form/validator',
      method: 'post',
      values: { formContent: schema },
      successNotification: false,
      errorNotification: false,
      meta: { silent: true },
    })
      .then(async ({ data }) => {
        // The module the server compiled, imported as such: the page evaluates no strings.
        const url = URL.createObjectURL(new Blob([data.module], { type: 'text/javascript' }));
        try {
          const loaded = (await import(/* @vite-ignore */ url)) as ValidatorFunctions;
          if (isCurrent) setFunctions(loaded);
        } finally {
          URL.revokeObjectURL(url);
        }
      })
      .catch((error: unknown) => {
        if (isCurrent) setCompileError(String((error as { message?: string }).message ?? error));
      });
    return () => {
      isCurrent = false;
    };
  }, [schema, compile]);

  const [formData, setFormData] = useState<Values>({});
  const [result, setResult] = useState<'valid' | 'invalid' | undefined>(undefined);
  const hidden = useMemo(() => hiddenFields(schema, formData), [schema, formData]);
  const validator = useMemo(
    () =>
      functions && built.formSchema
        ? createPrecompiledValidator<Values>(functions, built.formSchema)
        : undefined,
    [functions, built.formSchema],
  );

  if (built.error) return <Alert type="error" showIcon message={built.error} />;
  if (compileError) return <Alert type="error" showIcon message={compileError} />;
  if (!validator || !built.formSchema) return <Spin />;

  const layout: DesignedLayout = {
    items: schema['x-ui']?.items,
    hidden,
    spans: isNarrow ? new Map() : built.spans,
    language,
    isNarrow,
  };
  const uiSchema: UiSchema<Values> = {
    ...built.ui,
    'ui:submitButtonOptions': { norender: true },
  };
  const transformErrors = (errors: RJSFValidationError[]): RJSFValidationError[] =>
    visibleErrors(hidden, errors).map((error) => {
      const name = (error.property ?? '').replace(/^\./, '').split('.')[0] ?? '';
      const custom = schema.properties[name]?.['x-ui']?.patternMessage;
      if (error.name === 'pattern' && custom) return { ...error, message: custom };
      const field = built.messageFields?.get(name) ?? { title: name, entry: 'input' as const };
      const message = fieldMessage(
        error.name ?? 'invalid',
        (error.params ?? {}) as Record<string, unknown>,
        field,
      );
      return { ...error, message: t(message.key, message.params) };
    });
  const customValidate = (
    values: Values | undefined,
    errors: FormValidation<Values>,
  ): FormValidation<Values> =>
    addConditionErrors(schema, hidden, values, errors, (name) => {
      const field = built.messageFields?.get(name) ?? { title: name, entry: 'input' as const };
      const message = fieldMessage('required', {}, field);
      return t(message.key, message.params);
    });
  return (
    <div className="formdesign-rendered" data-testid="designed-form">
      <Form
        ref={formRef}
        schema={built.formSchema}
        uiSchema={uiSchema}
        formData={formData}
        formContext={designedContext(schema, layout)}
        onChange={(event) => {
          // A hidden field keeps no value: the server would refuse it.
          setFormData(withoutHidden(schema, { ...(event.formData ?? {}) }));
          setResult(undefined);
        }}
        validator={validator}
        widgets={adminModules.widgets()}
        fields={FIELDS}
        templates={DESIGNED_TEMPLATES}
        transformErrors={transformErrors}
        customValidate={customValidate}
        showErrorList={false}
        noHtml5Validate
        onSubmit={() => setResult('valid')}
        onError={() => setResult('invalid')}
      />
      <Space>
        <Button type="primary" onClick={() => formRef.current?.submit()} data-testid="preview-validate">
          {t('formDesigner.preview.validate')}
        </Button>
        {result === 'valid' ? (
          <Alert
            type="success"
            showIcon
            message={t('formDesigner.preview.valid')}
            data-testid="preview-valid"
          />
        ) : null}
        {result === 'invalid' ? (
          <Alert
            type="error"
            showIcon
            message={t('formDesigner.preview.invalid')}
            data-testid="preview-invalid"
          />
        ) : null}
      </Space>
    </div>
  );
}
