import type CoreForm from '@rjsf/core';
import type { ErrorSchema, RJSFSchema, UiSchema } from '@rjsf/utils';
import { Spin } from 'antd';
import { useMemo, type RefObject } from 'react';
import { entryOf, formFields, uiSchemaOf, type EntityDef, type MessageField } from '../../../engine/index.js';
import {
  extraErrorsOf,
  focusFirstError,
  Form,
  TEMPLATES,
  translatedSchema,
  translateErrors,
  usePrecompiledValidator,
} from '../../entity/EntityForm.js';
import { adminModules } from '../../lib/admin-modules.js';
import { useT } from '../../i18n.js';

type Values = Record<string, unknown>;

export { extraErrorsOf };

/**
 * The form a process names (formKey = an entity): the generated screens' RJSF renderer with the
 * same schema, widgets, validators and messages as the entity's own create form. The owner
 * submits it through formRef; onSubmit gets the values once they pass the checks.
 */
export function WfForm({
  entity,
  formRef,
  formData,
  onChange,
  onSubmit,
  extraErrors,
}: {
  entity: EntityDef;
  formRef: RefObject<CoreForm<Values> | null>;
  formData: Values;
  onChange: (values: Values) => void;
  onSubmit: (values: Values) => void;
  extraErrors?: ErrorSchema<Values> | undefined;
}) {
  const t = useT();
  const schema = useMemo(() => translatedSchema(entity, 'create', t), [entity, t]);
  const messageFields = useMemo(() => {
    const properties = (schema.properties ?? {}) as Record<string, RJSFSchema>;
    return new Map(
      formFields(entity, 'create').map((field): [string, MessageField] => [
        field.name,
        { title: String(properties[field.name]?.title ?? field.name), entry: entryOf(field.widget) },
      ]),
    );
  }, [entity, schema]);
  const validator = usePrecompiledValidator(schema);
  const uiSchema = useMemo(
    (): UiSchema<Values> => ({
      ...adminModules.uiSchemaFor(entity, uiSchemaOf(entity, 'create') as UiSchema<Values>),
      'ui:submitButtonOptions': { norender: true },
    }),
    [entity],
  );
  const transformErrors = useMemo(() => translateErrors(t, messageFields), [t, messageFields]);
  if (!validator) return <Spin />;
  return (
    <Form
      ref={formRef}
      schema={schema}
      uiSchema={uiSchema}
      formData={formData}
      onChange={(event) => onChange(event.formData ?? {})}
      validator={validator}
      widgets={adminModules.widgets()}
      templates={TEMPLATES}
      transformErrors={transformErrors}
      extraErrors={extraErrors}
      showErrorList={false}
      noHtml5Validate
      liveValidate="onBlur"
      onSubmit={(event) => onSubmit(event.formData ?? {})}
      onError={focusFirstError}
      data-testid="wf-form"
    />
  );
}
