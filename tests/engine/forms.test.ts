import { describe, expect, it } from 'vitest';
import {
  compileEntities,
  createAjv,
  formFields,
  formSchemaOf,
  listFilters,
  mismatchedConfirmations,
  uiSchemaOf,
  withoutConfirmations,
  type EntityDef,
} from '../../src/engine/index.js';
import { entityOf, realSources, widgetJson } from './fixtures.js';
import { USER_FORM } from '../support/sample-values.js';

const entities = new Map(compileEntities(realSources()).map((entity) => [entity.name, entity]));
function real(name: string): EntityDef {
  const entity = entities.get(name);
  if (!entity) throw new Error(`no entity ${name}`);
  return entity;
}

type Ui = Record<string, { 'ui:widget': string; 'ui:options': Record<string, unknown> }>;

describe('the generated form of an entity', () => {
  const user = real('sysuser');

  it('asks for the password and its confirmation on create only', () => {
    const create = formFields(user, 'create').map((field) => field.name);
    const update = formFields(user, 'update').map((field) => field.name);
    expect(create.slice(0, 4)).toEqual(['username', 'nickname', 'password', 'passwordConfirm']);
    expect(update).not.toContain('password');
    expect(update).not.toContain('passwordConfirm');
    // keys, versions and bookkeeping are never form fields
    for (const name of ['id', 'version', 'tenantCode', 'createdAt', 'updatedBy']) {
      expect(create).not.toContain(name);
      expect(update).not.toContain(name);
    }
  });

  it('derives the widgets from the schema', () => {
    const ui = uiSchemaOf(user, 'create') as Ui;
    expect(ui.status?.['ui:widget']).toBe('dictSelect');
    expect(ui.status?.['ui:options']).toMatchObject({ dict: 'user_status', display: 'radio' });
    expect(ui.roleId?.['ui:widget']).toBe('refSelect');
    expect(ui.roleId?.['ui:options']).toMatchObject({ ref: 'sysrole' });
    expect(ui.orgId?.['ui:widget']).toBe('refTreeSelect');
    expect(ui.password?.['ui:widget']).toBe('password');
    expect(ui.passwordConfirm?.['ui:options']).toMatchObject({ confirms: 'password' });
    expect(ui.profile?.['ui:widget']).toBe('textarea');
    expect(ui.profile?.['ui:options']).toMatchObject({ span: 24, rows: 3 });
    expect(ui.countryCode?.['ui:options']).toMatchObject({ span: 6 });
    expect(ui.email?.['ui:widget']).toBe('text');

    const menu = uiSchemaOf(real('sysmenu'), 'update') as Ui;
    expect(menu.menuParent?.['ui:widget']).toBe('refTreeSelect');
    expect(menu.menuParent?.['ui:options']).toMatchObject({ ref: 'sysmenu', root: 0 });
  });

  it('infers widgets for fields without hints', () => {
    const widget = entityOf(
      'widget',
      widgetJson({
        properties: {
          isOn: { type: 'boolean' },
          count: { type: 'integer' },
          madeOn: { type: 'string', format: 'date' },
          seenAt: { type: 'string', format: 'date-time' },
          size: { type: 'string', enum: ['s', 'm'] },
          body: { type: 'string', maxLength: 2000 },
          meta: { type: 'object' },
          labels: { type: 'array', items: { type: 'string' }, 'x-dict': 'widget_label' },
        },
      }),
    );
    const ui = uiSchemaOf(widget, 'create') as Ui;
    expect(
      Object.fromEntries(
        ['isOn', 'count', 'madeOn', 'seenAt', 'size', 'body', 'meta', 'labels'].map((name) => [
          name,
          ui[name]?.['ui:widget'],
        ]),
      ),
    ).toEqual({
      isOn: 'switch',
      count: 'updown',
      madeOn: 'date',
      seenAt: 'datetime',
      size: 'select',
      body: 'textarea',
      meta: 'json',
      labels: 'dictSelect',
    });
    expect(ui.labels?.['ui:options']).toMatchObject({ isMultiple: true });
  });

  it('validates with the server rules and the same ajv options', () => {
    const ajv = createAjv();
    const validate = ajv.compile(formSchemaOf(user, 'create'));
    const valid = USER_FORM;
    expect(validate(valid)).toBe(true);
    expect(validate({ ...valid, username: 'zs' })).toBe(false);
    expect(validate.errors?.map((error) => error.instancePath)).toEqual(['/username']);
    expect(validate({ ...valid, email: 'not-mail' })).toBe(false);

    const update = ajv.compile(formSchemaOf(user, 'update'));
    const { password: _p, passwordConfirm: _c, ...edited } = valid;
    expect(update(edited)).toBe(true);
    const { nickname: _n, ...withoutNickname } = edited;
    expect(update(withoutNickname)).toBe(false); // an edit may not clear a required field
  });

  it('checks the confirmation and leaves it out of the request', () => {
    const values = { username: 'a', password: 'secret1', passwordConfirm: 'secret2' };
    expect(mismatchedConfirmations(user, 'create', values)).toEqual(['passwordConfirm']);
    expect(mismatchedConfirmations(user, 'create', { ...values, passwordConfirm: 'secret1' })).toEqual([]);
    expect(withoutConfirmations(user, 'create', values)).toEqual({ username: 'a', password: 'secret1' });
  });
});

describe('the filter bar of a list', () => {
  it('offers text, dictionary, reference and date-range filters from the schema', () => {
    const filters = listFilters(real('sysuser'));
    const byField = new Map(filters.map((filter) => [filter.field, filter]));
    expect(byField.get('username')?.kind).toBe('text');
    expect(byField.get('status')).toMatchObject({ kind: 'select', dict: 'user_status' });
    expect(byField.get('roleId')).toMatchObject({ kind: 'select', ref: 'sysrole' });
    expect(byField.get('createdAt')?.kind).toBe('dateRange');
    // secrets, keys, hidden columns and bookkeeping are not filters
    for (const name of ['password', 'id', 'profile', 'tenantCode', 'version', 'updatedBy']) {
      expect(byField.has(name)).toBe(false);
    }
  });
});
