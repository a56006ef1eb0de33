import {
  buildEntity,
  checkEntitySchema,
  describeSchemaBudgetProblem,
  detailFields,
  entityTableSpecs,
  type EntityDef,
  type EntitySchema,
  type FieldError,
} from '../../../../engine/index.js';
import type { EntityRegistry } from '../../../lib/registry.js';
import { schemaBudgetOf } from '../../../lib/schema-budget.js';

/** A form code: the entity's name, so the same rule as a schema file's name. */
export const FORM_CODE_PATTERN = '^[a-z][a-z0-9]{1,39}$';
const FORM_CODE = new RegExp(FORM_CODE_PATTERN);

/** Published forms answer under /api/online/<code>: one route set serves them all (features/crud/routes/records.ts). */
export const ONLINE_API_PREFIX = 'online/';

export const onlineApiOf = (formCode: string): string => `${ONLINE_API_PREFIX}${formCode}`;

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The content a form is published with: the designed entity schema, with what the form itself
 * decides filled in. The API base is always online/<code> (the request-time routes serve only
 * that); the table, key and label get defaults when the designer left them out, and a missing
 * generated key `id` is added. Nothing the designer wrote is changed otherwise.
 */
export function normalizeContent({
  formCode,
  formName,
  content,
}: {
  formCode: string;
  formName: string;
  content: unknown;
}): unknown {
  if (!isObject(content)) return content;
  const properties = isObject(content.properties) ? content.properties : undefined;
  const declared = isObject(content['x-entity']) ? content['x-entity'] : {};
  const key = typeof declared.key === 'string' ? declared.key : 'id';
  const withKey =
    properties && key === 'id' && !Object.hasOwn(properties, 'id')
      ? { id: { type: 'integer', title: 'ID', readOnly: true }, ...properties }
      : properties;
  const firstText = Object.entries(withKey ?? {}).find(
    ([name, schema]) => name !== key && isObject(schema) && schema.type === 'string',
  )?.[0];
  const entityOptions: Json = {
    ...declared,
    api: onlineApiOf(formCode),
    table: typeof declared.table === 'string' ? declared.table : `online_${formCode}`,
    key,
    label: typeof declared.label === 'string' ? declared.label : (firstText ?? key),
  };
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    additionalProperties: false,
    ...content,
    title: typeof content.title === 'string' ? content.title : formName,
    ...(withKey ? { properties: withKey } : {}),
    'x-entity': entityOptions,
  };
}

/**
 * Checks a form's content as the engine checks a schema file (meta-schema, names, keys) plus
 * what only the live set can tell: references to existing entities, and clashes of the name,
 * API base or table with another entity. Problems come back as field errors under /formContent.
 * A content past BUDGETS.schemas (lib/schema-budget.ts) is refused before anything compiles it.
 */
export function compileForm({
  registry,
  formCode,
  content,
}: {
  registry: EntityRegistry;
  formCode: string;
  content: unknown;
}): { entity?: EntityDef; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const at = (pointer: string, message: string): void => {
    errors.push({ field: `/formContent${pointer}`, message });
  };
  if (!FORM_CODE.test(formCode)) {
    errors.push({
      field: '/formCode',
      message: 'must be lower-case letters and digits, starting with a letter',
    });
    return { errors };
  }
  const existing = registry.get(formCode);
  if (existing && !registry.isRuntime(formCode)) {
    errors.push({
      field: '/formCode',
      message: `"${formCode}" is the name of an entity of the schema files`,
    });
    return { errors };
  }
  // The budgets first: nothing compiles a schema past one (a published form's too, at load).
  const overBudget = schemaBudgetOf(content);
  for (const problem of overBudget) at(problem.pointer, describeSchemaBudgetProblem(problem));
  if (errors.length > 0) return { errors };
  for (const problem of checkEntitySchema(`form ${formCode}`, formCode, content))
    at(problem.pointer, problem.message);
  if (errors.length > 0) return { errors };
  const schema = content as EntitySchema;
  for (const [field, property] of Object.entries(schema.properties)) {
    const target = property['x-ref'];
    if (!target) continue;
    // A tree form's parent refers to the form itself, which the registry may not hold yet.
    const keyType =
      target === formCode ? schema.properties[schema['x-entity'].key]?.type : registry.get(target)?.key.type;
    if (!keyType) {
      at(`/properties/${field}/x-ref`, `no entity named "${target}"`);
    } else if (keyType !== property.type) {
      at(`/properties/${field}`, `refers to ${target} whose key is ${keyType}, but is ${property.type}`);
    }
  }
  const entity = buildEntity(formCode, schema);
  // The form's own table and each detail's child table: none may be another entity's.
  const tables = entityTableSpecs(entity).map((spec, index) => ({
    table: spec.name,
    pointer:
      index === 0 ? '/x-entity/table' : `/properties/${detailFields(entity)[index - 1]?.name ?? ''}/x-detail`,
  }));
  const taken = new Map<string, string>();
  for (const other of registry.all) {
    if (other.name === formCode) continue;
    for (const spec of entityTableSpecs(other)) taken.set(spec.name, other.name);
  }
  for (const { table, pointer } of tables) {
    const owner = taken.get(table);
    if (owner) at(pointer, `table "${table}" is already used by ${owner}`);
    if (/^(sys|wf|act)_/.test(table)) at(pointer, 'sys_, wf_ and act_ tables belong to the framework');
  }
  if (errors.length > 0) return { errors };
  return { entity, errors };
}
