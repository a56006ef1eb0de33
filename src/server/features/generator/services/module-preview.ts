import { SchemaFileError } from '../../../../engine/index.js';
import {
  generateForward,
  GeneratorTemplateError,
  type GeneratedFile,
  type TemplateType,
} from '../../../../../generators/forward.js';
import type { DetailLayout } from '../../../../../generators/model.js';
import type { AppContext } from '../../../lib/context.js';
import { AppError } from '../../../lib/errors.js';
import type { Actor } from '../../../lib/sql/toolkit.js';
import { isOtherTenantsForm } from '../../forms/index.js';
import { renderInWorker } from '../render/render.js';
import { templatesFor } from './templates.js';

/** Forward generation for the back-office: entities of the registry (schemas/ or published forms). */

export interface ForwardBody {
  entities: string[];
  serviceName: string;
  packageName: string;
  templateType?: TemplateType | undefined;
  /** Master-detail layout (generators/README.md); `form` when absent. */
  detailLayout?: DetailLayout | undefined;
}

/** The files a module of the entities would have, from the tenant's templates. */
export async function previewModule({
  ctx,
  actor,
  body,
}: {
  ctx: AppContext;
  actor: Actor;
  body: ForwardBody;
}): Promise<GeneratedFile[]> {
  const inputs = body.entities.map((name, index) => {
    const entity = ctx.registry.get(name);
    // Another tenant's published form is not the caller's to see: as unknown as a missing one.
    if (!entity || isOtherTenantsForm(ctx, entity, actor.tenantCode))
      throw new AppError('validation', {}, [
        { field: `/entities/${index}`, message: `no entity named ${name}` },
      ]);
    return { name: entity.name, schema: entity.schema };
  });
  try {
    return await generateForward(
      {
        entities: inputs,
        serviceName: body.serviceName,
        packageName: body.packageName,
        // A referenced entity's schema from the registry (not another tenant's form).
        schemaOf: (name) => {
          const entity = ctx.registry.get(name);
          return entity && !isOtherTenantsForm(ctx, entity, actor.tenantCode) ? entity.schema : undefined;
        },
        ...(body.templateType ? { templateType: body.templateType } : {}),
        ...(body.detailLayout ? { detailLayout: body.detailLayout } : {}),
      },
      await templatesFor(ctx, actor.tenantCode),
      renderInWorker,
    );
  } catch (error) {
    if (error instanceof GeneratorTemplateError) {
      const { line, column, message } = error.problem;
      const where = line === undefined ? '' : `${line}:${column ?? 1} `;
      throw new AppError('validation', {}, [
        { field: `/templates/${error.item}`, message: `${where}${message}` },
      ]);
    }
    if (error instanceof SchemaFileError)
      throw new AppError(
        'validation',
        {},
        error.problems.map((problem) => ({
          field: `/entities${problem.pointer}`,
          message: `${problem.file}: ${problem.message}`,
        })),
      );
    throw error;
  }
}
