import type { ErrorObject } from 'ajv';

/** A meta-schema validator as ajv's standalone code exports it. */
export type MetaValidate = ((json: unknown) => boolean) & { errors?: ErrorObject[] | null };

/** The validators module the server compiles (the same URL the generated forms load). */
const VALIDATORS_URL = '/api/schemas/validators.js';
/** Its export of the meta-schema's validator (features/forms/services/form-validators.ts). */
const META_EXPORT = 'entity_meta';

let loading: Promise<MetaValidate> | undefined;

/** The meta-schema's validator, compiled by the server: the page compiles nothing (no eval). */
export function loadMetaValidator(): Promise<MetaValidate> {
  loading ??= (import(/* @vite-ignore */ VALIDATORS_URL) as Promise<Record<string, MetaValidate | undefined>>)
    .then((module) => {
      const validate = module[META_EXPORT];
      if (!validate) throw new Error('the server sent no meta-schema validator');
      return validate;
    })
    .catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
  return loading;
}
