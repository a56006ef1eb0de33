import { describe, expect, it } from 'vitest';
import {
  autoFields,
  compileEntities,
  formFields,
  formSchemaOf,
  type EntityDef,
} from '../../src/engine/index.js';
import { realSources } from './fixtures.js';

const entities = compileEntities(realSources());
const byName = new Map(entities.map((entity) => [entity.name, entity]));
function real(name: string): EntityDef {
  const entity = byName.get(name);
  if (!entity) throw new Error(`no entity ${name}`);
  return entity;
}

describe('the fields the server fills (x-auto), shown read-only', () => {
  it('are 通知公告 publisher and publish time, as text and date-time', () => {
    const fields = autoFields(real('notification'));
    expect(fields.map((field) => [field.name, field.widget])).toEqual([
      ['publisher', 'text'],
      ['publishTime', 'datetime'],
    ]);
    expect(fields[0]?.titleKeys[0]).toBe('entities.notification.fields.publisher');
  });

  it('are every x-auto field of every entity, and never in a form or its schema', () => {
    for (const entity of entities) {
      const auto = entity.fields.filter((field) => field.auto !== undefined).map((field) => field.name);
      expect(autoFields(entity).map((field) => field.name)).toEqual(auto);
      for (const mode of ['create', 'update'] as const) {
        const names = formFields(entity, mode).map((field) => field.name);
        const properties = Object.keys(formSchemaOf(entity, mode).properties as object);
        for (const name of auto) {
          expect(names).not.toContain(name);
          expect(properties).not.toContain(name);
        }
      }
    }
  });

  it('are none for an entity without them', () => {
    expect(autoFields(real('sysuser'))).toEqual([]);
  });
});
