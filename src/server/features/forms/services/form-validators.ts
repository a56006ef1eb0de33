import { _, Ajv } from 'ajv';
import standaloneCodeModule from 'ajv/dist/standalone/index.js';
import { build } from 'esbuild';
import {
  AJV_OPTIONS,
  configureAjv,
  formSchemaId,
  formSchemaOf,
  type EntityDef,
  type FormMode,
} from '../../../../engine/index.js';
import { currentMetaSchema } from '../../../../engine/meta.js';

// ajv's standalone module is CommonJS; its default export arrives wrapped under some loaders.
type StandaloneCode = (ajv: Ajv, refs: Record<string, string>) => string;
const standaloneCode: StandaloneCode =
  (standaloneCodeModule as unknown as { default?: StandaloneCode }).default ??
  (standaloneCodeModule as unknown as StandaloneCode);

const MODES: readonly FormMode[] = ['create', 'update'];

/** The export of the meta-schema's validator: the form designer checks its JSON view with it. */
export const META_VALIDATOR_ID = 'entity_meta';

/**
 * The browser's form validators as one ES module: every entity's create and update form schema
 * compiled on the server by ajv with the server's options, formats and vocabulary (ajv standalone
 * code, bundled with its runtime by esbuild). The back-office page then needs no `eval`: its
 * content security policy stays `script-src 'self'`.
 */
export async function formValidatorsModule({
  entities,
  engineDir,
  withMeta = true,
}: {
  entities: readonly EntityDef[];
  /** Where the engine's sources are (the formats the validators import). */
  engineDir: string;
  /** With the meta-schema's validator (the form designer's JSON view). */
  withMeta?: boolean;
}): Promise<string> {
  const formats = `${engineDir}/formats.ts`;
  const ajv = configureAjv(
    new Ajv({
      ...AJV_OPTIONS,
      code: { source: true, esm: true, formats: _`require(${formats}).ENTITY_FORMATS` },
    }),
  );
  const exported: Record<string, string> = {};
  for (const entity of entities) {
    for (const mode of MODES) {
      const id = formSchemaId(entity.name, mode);
      ajv.addSchema({ ...formSchemaOf(entity, mode), $id: id });
      exported[id] = id;
    }
  }
  if (withMeta) {
    // The browser checks a copy: the defaults this ajv applies never reach the schema shown.
    ajv.addSchema({ ...currentMetaSchema(), $id: META_VALIDATOR_ID });
    exported[META_VALIDATOR_ID] = META_VALIDATOR_ID;
  }
  const result = await build({
    stdin: {
      contents: standaloneCode(ajv, exported),
      resolveDir: engineDir,
      sourcefile: 'form-validators.js',
    },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    minify: true,
    write: false,
    logLevel: 'silent',
  });
  const output = result.outputFiles[0];
  if (!output) throw new Error('esbuild produced no form validators');
  return output.text;
}
