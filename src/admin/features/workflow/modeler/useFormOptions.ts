import { useCustom } from '@refinedev/core';
import { useMemo } from 'react';
import { entityTitle, formTitle } from '../../../entity/labels.js';
import { useResources } from '../../../entity/resources.js';
import { useLanguage, useT } from '../../../i18n.js';

export interface FormOption {
  value: string;
  label: string;
}

/**
 * The forms a process can name (a start event's formKey, a model's usedForm), each labelled by its
 * title with its code: the published designed forms, then the entities of the schemas the admin
 * knows (a published form is one of them too, named by its code).
 */
export function useFormOptions(): FormOption[] {
  const resources = useResources();
  // silent: a server without the form designer answers 404, which is no error here
  const { query: designed } = useCustom<{
    records?: { formCode?: string; formName?: string; status?: string; formContent?: unknown }[];
  }>({
    url: '/api/generator/form/query',
    method: 'get',
    config: { query: { pageSize: 100, status: 'published' } },
    meta: { silent: true },
    queryOptions: { retry: false, refetchOnWindowFocus: false },
  });
  const t = useT();
  const language = useLanguage();
  return useMemo(() => {
    // a draft form is no entity yet: a process naming it would show no form
    const options = (designed.data?.data.records ?? [])
      .filter((form) => form.formCode && form.status === 'published')
      .map((form) => ({
        value: form.formCode ?? '',
        label: `${formTitle(form, language)}（${form.formCode}）`,
      }));
    for (const [name, { entity }] of resources ?? []) {
      if (!options.some((option) => option.value === name))
        options.push({ value: name, label: `${entityTitle(t, name, entity?.title ?? name)}（${name}）` });
    }
    return options;
  }, [designed.data, resources, t, language]);
}

/** The options with `value` first when it is none of them (a form since unpublished shows its code). */
export function withCurrent(options: FormOption[], value: string | undefined): FormOption[] {
  return value && !options.some((option) => option.value === value)
    ? [{ value, label: value }, ...options]
    : options;
}
