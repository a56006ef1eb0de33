import type CoreForm from '@rjsf/core';
import type { ErrorSchema, UiSchema } from '@rjsf/utils';
import { Spin } from 'antd';
import { useMemo, type RefObject } from 'react';
import { formFields, type EntityDef } from '../../../engine/index.js';
import { extraErrorsOf, Form, useEntityForm } from '../../entity/EntityForm.js';

type Values = Record<string, unknown>;

export { extraErrorsOf };

/** The values of an entity's form fields among an instance's variables (the start form's data). */
export function formValuesOf(
  entity: EntityDef,
  variables: readonly { name: string; value: unknown }[],
): Values {
  const names = new Set(formFields(entity, 'create').map((field) => field.name));
  return Object.fromEntries(
    variables
      .filter((variable) => names.has(variable.name) && variable.value !== null)
      .map((variable) => [variable.name, variable.value]),
  );
}

/**
 * The form a process names (formKey = an entity): the generated screens' RJSF renderer with the
 * same schema, widgets, detail tables, designed layout, validators and messages as the entity's
 * own create form (useEntityForm), the caller's field rights applied. The owner submits it through formRef;
 * onSubmit gets the values once they pass the checks. `readonly`: shown, not edited (the start
 * form's data on a task or instance page).
 */
export function WfForm({
  entity,
  formRef,
  formData,
  onChange,
  onSubmit,
  extraErrors,
  readonly = false,
  editableFields,
}: {
  entity: EntityDef;
  formRef?: RefObject<CoreForm<Values> | null>;
  formData: Values;
  onChange?: (values: Values) => void;
  onSubmit?: (values: Values) => void;
  extraErrors?: ErrorSchema<Values> | undefined;
  readonly?: boolean;
  /** Only these fields are edited, the others shown read-only (a record under approval on its task screen). */
  editableFields?: ReadonlySet<string>;
}) {
  const form = useEntityForm(entity, 'create', formData);
  const baseUiSchema = form.props?.uiSchema;
  // A record under approval on its task screen: only the task's fields are edited.
  const uiSchema = useMemo((): UiSchema<Values> | undefined => {
    if (!baseUiSchema || !editableFields) return baseUiSchema;
    const locked: UiSchema<Values> = { ...baseUiSchema };
    for (const field of formFields(entity, 'create'))
      if (!editableFields.has(field.name))
        locked[field.name] = { ...(baseUiSchema[field.name] as UiSchema | undefined), 'ui:readonly': true };
    return locked;
  }, [entity, baseUiSchema, editableFields]);
  if (!form.props) return <Spin />;
  return (
    <Form
      {...form.props}
      uiSchema={uiSchema}
      {...(formRef ? { ref: formRef } : {})}
      formData={formData}
      readonly={readonly}
      onChange={(event) => onChange?.(form.kept(event.formData))}
      extraErrors={extraErrors}
      onSubmit={(event) => onSubmit?.(event.formData ?? {})}
      className={readonly ? 'wf-form-readonly' : undefined}
    />
  );
}
