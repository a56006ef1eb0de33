import { useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { forgetValidators } from '../../../entity/EntityForm.js';
import { forgetResources } from '../../../providers/resources.js';
import type { FormRecord, FormVersion, PublishAnswer } from '../../../../engine/api-types.js';

export type { FormRecord, FormVersion, PublishAnswer };
export { formTitle } from '../../../entity/labels.js';

/** The designed-forms API (src/server/features/forms/routes/designer.ts). */
export const FORMS_API = '/api/generator/form';

/** Where a signed-in user fills in a published form, outside the back-office shell. */
export const fillPath = (formCode: string): string => `/generatorform?form=${encodeURIComponent(formCode)}`;

/**
 * After a publish or unpublish: the entity schemas, the forms' validators and the menus are
 * read again, so the sidebar and the generated screens follow without a reload.
 */
export function useEntitiesChanged(): () => Promise<void> {
  const client = useQueryClient();
  return useCallback(async () => {
    forgetResources();
    forgetValidators();
    await client.invalidateQueries({ queryKey: ['admin'] });
  }, [client]);
}
