import { describe, expect, it } from 'vitest';
import {
  checkEntitySchema,
  compileEntities,
  compileValidators,
  createAjv,
  entityTableSpec,
  exportColumns,
  listColumns,
  planTableMigration,
  SYSTEM_FIELD_NAMES,
} from '../../src/engine/index.js';
import { realSources } from './fixtures.js';

const EXPECTED = [
  'appclient',
  'article',
  'homepicture',
  'idleequipment',
  'notice',
  'notification',
  'purchase',
  'report',
  'sysdict',
  'sysmenu',
  'sysorg',
  'sysparam',
  'syspost',
  'sysregion',
  'sysrole',
  'systenant',
  'sysurl',
  'sysuser',
  'sysuserpost',
];

describe('the real schemas in schemas/', () => {
  const sources = realSources();
  const entities = compileEntities(sources);

  it('are the 13 admin entities of the design, the 4 portal content entities, the demo article (SPEC §3) and the saved report (issue 18)', () => {
    expect(sources.map((s) => s.name)).toEqual(EXPECTED);
    expect(entities.map((e) => e.name)).toEqual(EXPECTED);
  });

  it.each(sources.map((s) => [s.name, s] as const))(
    '%s passes the meta-schema and the semantic rules',
    (_name, source) => {
      expect(checkEntitySchema(source.file, source.name, source.json)).toEqual([]);
      expect(source.file).toBe(`schemas/${source.name}.schema.json`);
    },
  );

  it('use distinct api paths and tables', () => {
    expect(new Set(entities.map((e) => e.api)).size).toBe(entities.length);
    expect(new Set(entities.map((e) => e.table)).size).toBe(entities.length);
  });

  it('have the base paths of DESIGN.md', () => {
    const apis = Object.fromEntries(entities.map((e) => [e.name, e.api]));
    expect(apis).toMatchObject({
      sysuser: 'admin/sysuser',
      sysregion: 'admin/sysregion',
      appclient: 'uaa/appclient',
      notification: 'admin/notification',
    });
  });

  it('make the tree entities trees with a self-referencing parent', () => {
    const trees = entities.filter((e) => e.tree).map((e) => e.name);
    expect(trees.sort()).toEqual(['sysdict', 'sysmenu', 'sysorg', 'syspost', 'sysregion']);
    for (const entity of entities.filter((e) => e.tree)) {
      expect(entity.fieldsByName.get(entity.tree?.parent ?? '')?.ref).toBe(entity.name);
    }
  });

  it('give every entity the system fields, and only the tenant entity its own tenantCode', () => {
    for (const entity of entities) {
      for (const name of SYSTEM_FIELD_NAMES) {
        const field = entity.fieldsByName.get(name);
        expect(field, `${entity.name}.${name}`).toBeDefined();
        expect(field?.isSystem, `${entity.name}.${name}`).toBe(
          !(entity.name === 'systenant' && name === 'tenantCode'),
        );
      }
    }
  });

  it('keep secrets out of list and export columns', () => {
    const secrets = entities.flatMap((e) =>
      e.fields.filter((f) => f.isSecret).map((f) => `${e.name}.${f.name}`),
    );
    expect(secrets.sort()).toEqual(['appclient.clientSecret', 'sysuser.password']);
    for (const entity of entities) {
      const shown = [...listColumns(entity), ...exportColumns(entity)].map((c) => c.field);
      for (const field of entity.fields.filter((f) => f.isSecret)) expect(shown).not.toContain(field.name);
    }
  });

  it('compile create and update validators in strict ajv', () => {
    const ajv = createAjv();
    for (const entity of entities) {
      const validators = compileValidators(ajv, entity);
      expect(typeof validators.create).toBe('function');
      expect(typeof validators.update).toBe('function');
    }
  });

  it('derive tables whose identifiers are all safe', () => {
    for (const entity of entities) {
      const plan = planTableMigration(entityTableSpec(entity), undefined);
      expect(plan.problems).toEqual([]);
      expect(plan.statements[0]).toMatch(new RegExp(`^create table "${entity.table}"`));
    }
  });
});
