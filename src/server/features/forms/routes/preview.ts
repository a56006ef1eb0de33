import type { FastifyInstance } from 'fastify';
import { buildEntity, checkEntitySchema, type EntitySchema } from '../../../../engine/index.js';
import { AppError } from '../../../lib/errors.js';
import { ok } from '../../../lib/http.js';
import { localizerFor } from '../../../lib/i18n.js';
import { assertSchemaBudget } from '../../../lib/schema-budget.js';
import { answer, dictionary, object, typed } from '../../../lib/route-schema.js';
import { formValidatorsModule } from '../services/form-validators.js';

/** What a preview is called while it has no name of its own. */
const PREVIEW_NAME = 'formpreview';

/**
 * The form designer's preview validators: the posted (unsaved) entity schema's create form
 * compiled by the same code as GET /api/schemas/validators.js, so the preview validates exactly
 * as the generated screen of the published form will, while the page still compiles nothing.
 */
export async function formPreviewRoutes(app: FastifyInstance): Promise<void> {
  const { ctx } = app;
  typed(app).post(
    '/api/generator/form/validator',
    {
      schema: {
        tags: ['generator'],
        summary: "A designed form's validators (the create and update forms), compiled on the server",
        body: object({ formContent: dictionary(undefined, { description: 'The entity schema' }) }, [
          'formContent',
        ]),
        response: answer(
          object({ module: { type: 'string', description: 'An ES module of the validators' } }, ['module']),
        ),
      },
    },
    async (request) => {
      const { formContent } = request.body;
      assertSchemaBudget(formContent, localizerFor(request), '/formContent');
      const problems = checkEntitySchema(`${PREVIEW_NAME}.schema.json`, PREVIEW_NAME, formContent);
      if (problems.length > 0) {
        throw new AppError(
          'validation',
          {},
          problems.map((problem) => ({ field: `/formContent${problem.pointer}`, message: problem.message })),
        );
      }
      const entity = buildEntity(PREVIEW_NAME, formContent as unknown as EntitySchema);
      const module = await formValidatorsModule({
        entities: [entity],
        engineDir: ctx.config.engineDir,
        withMeta: false,
      });
      return ok({ module });
    },
  );
}
