import { describe, expect, it } from 'vitest';
import {
  compileEntities,
  entityTableSpec,
  indexName,
  listColumns,
  listFilters,
  listIndexes,
  LONG_TEXT_LENGTH,
  planTableMigration,
  quoteIdentifier,
  type ExistingTable,
  type SqlType,
  type TableSpec,
} from '../../src/engine/index.js';
import { entityOf, realSources, widgetJson } from './fixtures.js';

const PROPERTIES = {
  code: { type: 'string', 'x-unique': true },
  ownerId: { type: 'integer', 'x-ref': 'owner' },
  price: { type: 'number' },
  isOn: { type: 'boolean' },
  madeOn: { type: 'string', format: 'date' },
  seenAt: { type: 'string', format: 'date-time' },
  tags: { type: 'array', items: { type: 'string' } },
  meta: { type: 'object' },
};
const tenantWidget = entityOf('widget', widgetJson({ properties: PROPERTIES }));
const platformWidget = entityOf('widget', widgetJson({ entity: { tenant: false }, properties: PROPERTIES }));

/** information_schema.columns.data_type, as the database reports each type. */
const REPORTED: Record<SqlType, string> = {
  text: 'text',
  bigint: 'bigint',
  integer: 'integer',
  'double precision': 'double precision',
  boolean: 'boolean',
  jsonb: 'jsonb',
  timestamptz: 'timestamp with time zone',
  date: 'date',
};

/** The database state that matches a spec exactly. */
function existingFor(spec: TableSpec): ExistingTable {
  return {
    columns: new Map(spec.columns.map((c) => [c.name, REPORTED[c.type] ?? c.type])),
    indexes: new Set(spec.indexes.map((i) => i.name)),
    constraints: new Set(spec.foreignKeys.map((f) => f.name)),
  };
}

describe('entityTableSpec', () => {
  const spec = entityTableSpec(tenantWidget);
  const column = (name: string) => spec.columns.find((c) => c.name === name);

  it('has a column per field, snake_case, with its SQL type', () => {
    expect(spec.name).toBe('widget');
    expect(spec.columns.map((c) => [c.name, c.type])).toEqual([
      ['id', 'bigint'],
      ['name', 'text'],
      ['code', 'text'],
      ['owner_id', 'bigint'],
      ['price', 'double precision'],
      ['is_on', 'boolean'],
      ['made_on', 'date'],
      ['seen_at', 'timestamptz'],
      ['tags', 'jsonb'],
      ['meta', 'jsonb'],
      ['tenant_code', 'text'],
      ['created_at', 'timestamptz'],
      ['created_by', 'text'],
      ['updated_at', 'timestamptz'],
      ['updated_by', 'text'],
      ['version', 'integer'],
    ]);
  });

  it('makes a generated key an identity primary key', () => {
    expect(column('id')).toEqual({ name: 'id', type: 'bigint', isNullable: false, isIdentity: true });
    expect(spec.primaryKey).toEqual(['id']);
  });

  it('leaves declared fields nullable: the validators own "required"', () => {
    expect(column('name')).toEqual({ name: 'name', type: 'text', isNullable: true });
    expect(column('code')?.isNullable).toBe(true);
  });

  it('adds the system columns with their defaults', () => {
    expect(column('tenant_code')).toEqual({ name: 'tenant_code', type: 'text', isNullable: false });
    expect(column('created_at')).toEqual({
      name: 'created_at',
      type: 'timestamptz',
      isNullable: false,
      defaultSql: 'now()',
    });
    expect(column('updated_at')).toEqual({
      name: 'updated_at',
      type: 'timestamptz',
      isNullable: false,
      defaultSql: 'now()',
    });
    expect(column('created_by')).toEqual({ name: 'created_by', type: 'text', isNullable: true });
    expect(column('updated_by')).toEqual({ name: 'updated_by', type: 'text', isNullable: true });
    expect(column('version')).toEqual({
      name: 'version',
      type: 'integer',
      isNullable: false,
      defaultSql: '1',
    });
  });

  it('scopes unique indexes by tenant and indexes references', () => {
    expect(spec.indexes.filter((index) => !index.list)).toEqual([
      { name: 'widget_code_uq', columns: ['tenant_code', 'code'], isUnique: true },
      { name: 'widget_owner_id_idx', columns: ['owner_id'], isUnique: false },
    ]);
    expect(spec.foreignKeys).toEqual([]);
  });

  it('has no plain tenant index where a btree led by the tenant serves its lookups', () => {
    // (tenant_code, id), the key's list index, finds a tenant's rows as well as (tenant_code) would.
    expect(spec.indexes.map((index) => index.name)).not.toContain('widget_tenant_code_idx');
    expect(spec.indexes).toContainEqual(
      expect.objectContaining({ name: 'widget_tenant_code_id_lx', columns: ['tenant_code', 'id'] }),
    );
    expect(spec.retiredIndexes).toContain('widget_tenant_code_idx');
    // Every tenant entity has one: createdAt, sortable and filtered by dates, is always there.
    for (const entity of compileEntities(realSources()).filter((item) => item.isTenantScoped)) {
      const names = entityTableSpec(entity).indexes.map((index) => index.name);
      expect(names, entity.name).not.toContain(`${entity.table}_tenant_code_idx`);
      expect(names, entity.name).toContain(
        indexName(entity.table, ['tenant_code', 'created_at', entity.key.column], 'lx'),
      );
    }
  });

  it('does not scope the unique indexes of a platform entity', () => {
    expect(entityTableSpec(platformWidget).indexes.filter((index) => !index.list)).toEqual([
      { name: 'widget_code_uq', columns: ['code'], isUnique: true },
      { name: 'widget_owner_id_idx', columns: ['owner_id'], isUnique: false },
    ]);
  });

  it('does not generate a client-supplied key', () => {
    const coded = entityTableSpec(
      entityOf(
        'widget',
        widgetJson({ entity: { key: 'code' }, properties: { id: undefined, code: { type: 'string' } } }),
      ),
    );
    expect(coded.columns.find((c) => c.name === 'code')).toEqual({
      name: 'code',
      type: 'text',
      isNullable: false,
    });
    expect(coded.primaryKey).toEqual(['code']);
  });

  it('derives the real tables: users scoped by tenant, the tenant table owning its code', () => {
    const entities = compileEntities(realSources());
    const table = (name: string): TableSpec => {
      const entity = entities.find((e) => e.name === name);
      if (!entity) throw new Error(`no ${name}`);
      return entityTableSpec(entity);
    };
    expect(table('sysuser').indexes.filter((i) => i.isUnique)).toEqual([
      { name: 'sys_user_username_uq', columns: ['tenant_code', 'username'], isUnique: true },
      { name: 'sys_user_mobile_uq', columns: ['tenant_code', 'mobile'], isUnique: true },
    ]);
    const tenant = table('systenant');
    expect(tenant.columns.filter((c) => c.name === 'tenant_code')).toEqual([
      { name: 'tenant_code', type: 'text', isNullable: true },
    ]);
    expect(tenant.indexes.filter((index) => !index.list)).toEqual([
      { name: 'sys_tenant_tenant_code_uq', columns: ['tenant_code'], isUnique: true },
    ]);
    const region = table('sysregion');
    expect(region.primaryKey).toEqual(['region_code']);
    expect(region.columns.find((c) => c.name === 'region_code')?.isIdentity).toBeUndefined();
    expect(table('sysmenu').indexes).toContainEqual({
      name: 'sys_menu_menu_parent_idx',
      columns: ['menu_parent'],
      isUnique: false,
    });
  });
});

describe('listIndexes', () => {
  const lists = (entity: Parameters<typeof listIndexes>[0]) =>
    listIndexes(entity).map((index) => [index.name, index.columns.join(','), index.list?.method]);

  it("gives every sortable column and narrowing filter a tenant-led index ending with the key, the label's contains a trigram one", () => {
    expect(lists(tenantWidget)).toEqual([
      ['widget_tenant_code_id_lx', 'tenant_code,id', 'btree'],
      ['widget_tenant_code_name_id_lx', 'tenant_code,name,id', 'btree'],
      ['widget_name_trgm', 'name', 'trigram'],
      ['widget_tenant_code_code_id_lx', 'tenant_code,code,id', 'btree'],
      ['widget_tenant_code_owner_id_id_lx', 'tenant_code,owner_id,id', 'btree'],
      ['widget_tenant_code_price_id_lx', 'tenant_code,price,id', 'btree'],
      ['widget_tenant_code_made_on_id_lx', 'tenant_code,made_on,id', 'btree'],
      ['widget_tenant_code_seen_at_id_lx', 'tenant_code,seen_at,id', 'btree'],
      ['widget_tenant_code_created_at_id_lx', 'tenant_code,created_at,id', 'btree'],
    ]);
  });

  it('gives the hidden bookkeeping columns no index: the list neither sorts nor filters by them', () => {
    for (const name of ['createdBy', 'updatedAt', 'updatedBy', 'version'])
      expect(tenantWidget.fieldsByName.get(name)?.isSortable, name).toBe(false);
    // The API still filters by them, unindexed.
    expect(tenantWidget.fieldsByName.get('createdBy')?.filter).toBe('text');
    expect(tenantWidget.fieldsByName.get('updatedAt')?.filter).toBe('dateRange');
    expect(tenantWidget.fieldsByName.get('createdAt')?.isSortable).toBe(true);
  });

  it('indexes a hidden column only for what the list offers on it', () => {
    const hidden = entityOf(
      'widget',
      widgetJson({
        properties: {
          ...PROPERTIES,
          phone: { type: 'string', maxLength: 32, 'x-list': { visible: false } },
          grade: { type: 'string', enum: ['a', 'b'], 'x-list': { visible: false } },
          region: { type: 'string', maxLength: 32, 'x-list': { visible: false, sorter: true } },
          kind: { type: 'string', enum: ['a', 'b'], 'x-list': { visible: false, filter: 'select' } },
          note: {
            type: 'string',
            maxLength: 64,
            'x-list': { visible: false, filter: 'text', trigram: true },
          },
          memo: { type: 'string', maxLength: 64, 'x-list': { visible: false, filter: 'text' } },
          colours: { type: 'array', items: { enum: ['red'] }, 'x-list': { visible: false } },
        },
      }),
    );
    const names = lists(hidden).map(([name]) => name);
    // Hidden, not in the filter bar, not sortable: nothing kept up on every write.
    for (const name of [
      'widget_tenant_code_phone_id_lx',
      'widget_phone_trgm',
      'widget_tenant_code_grade_id_lx',
      'widget_colours_gin',
    ])
      expect(names).not.toContain(name);
    // sorter: true sorts it (its btree), the filter bar's own filters get theirs.
    expect(names).toContain('widget_tenant_code_region_id_lx');
    expect(names).not.toContain('widget_region_trgm');
    // A select of an enum's few values reads the list's own order (no btree of its own).
    expect(names).not.toContain('widget_tenant_code_kind_id_lx');
    expect(names).toContain('widget_note_trgm');
    expect(names).not.toContain('widget_tenant_code_note_id_lx');
    // "contains" gets its trigram index where the schema asks (x-list.trigram), not otherwise.
    expect(names).not.toContain('widget_memo_trgm');
  });

  it('keeps a "contains" filter without a btree when the field is not sortable', () => {
    const phone = entityOf(
      'widget',
      widgetJson({
        properties: {
          ...PROPERTIES,
          phone: { type: 'string', maxLength: 32, 'x-list': { sorter: false, trigram: true } },
          grade: { type: 'string', enum: ['a', 'b'], 'x-list': { sorter: false } },
          weight: { type: 'number', 'x-list': { sorter: false } },
          ownerId: { type: 'integer', 'x-ref': 'owner', 'x-list': { sorter: false } },
        },
      }),
    );
    const names = lists(phone).map(([name]) => name);
    expect(names).toContain('widget_phone_trgm');
    expect(names).not.toContain('widget_tenant_code_phone_id_lx');
    expect(phone.fieldsByName.get('phone')?.filter).toBe('text');
    // A range filter, or an equality on many values (a reference), reads one range of its
    // btree: kept without the sort. An enum's few values are read in the list's own order.
    expect(names).not.toContain('widget_tenant_code_grade_id_lx');
    expect(names).toContain('widget_tenant_code_weight_id_lx');
    expect(names).toContain('widget_tenant_code_owner_id_id_lx');
  });

  it('indexes a platform entity without the tenant, and the key not twice', () => {
    expect(lists(platformWidget).map(([name]) => name)).not.toContain('widget_id_lx');
    expect(lists(platformWidget)[0]).toEqual(['widget_name_id_lx', 'name,id', 'btree']);
  });

  it('builds a default order of several fields as one index, in its directions', () => {
    const sorted = entityOf(
      'widget',
      widgetJson({ entity: { defaultSort: '-price,name' }, properties: PROPERTIES }),
    );
    const plan = planTableMigration(entityTableSpec(sorted), undefined);
    expect(plan.statements).toContain(
      'create index if not exists "widget_default_price_name_lx" on "widget" ("tenant_code", "price" desc nulls last, "name" nulls first, "id")',
    );
  });

  it('creates trigram indexes with pg_trgm, and list indexes of existing tables concurrently', () => {
    const spec = entityTableSpec(tenantWidget);
    const existing = existingFor({ ...spec, indexes: spec.indexes.filter((index) => !index.list) });
    const plan = planTableMigration(spec, existing, { hasTrigram: true, isConcurrent: true });
    expect(plan.statements).toEqual([]);
    expect(plan.concurrentStatements).toContain(
      'create index concurrently if not exists "widget_name_trgm" on "widget" using gin ("name" gin_trgm_ops)',
    );
    const tagged = entityTableSpec(
      entityOf(
        'widget',
        widgetJson({ properties: { tags: { type: 'array', items: { enum: ['a', 'b'] } } } }),
      ),
    );
    expect(planTableMigration(tagged, undefined).statements).toContain(
      'create index if not exists "widget_tags_gin" on "widget" using gin ("tags" jsonb_path_ops)',
    );
    expect(plan.concurrentStatements).toHaveLength(spec.indexes.filter((index) => index.list).length);
  });

  it('indexes every filter of the filter bar and every sortable column of every real entity, and no other field', () => {
    for (const entity of compileEntities(realSources())) {
      const indexes = listIndexes(entity);
      const names = new Set(indexes.map((index) => index.columns.join(',')));
      const scope = entity.isTenantScoped ? 'tenant_code,' : '';
      const btree = (column: string) => `${scope}${column},${entity.key.column}`;
      const offered = new Set<string>();
      for (const filter of listFilters(entity)) {
        const field = entity.fieldsByName.get(filter.field);
        if (!field) throw new Error(`${entity.name}: no field ${filter.field}`);
        offered.add(field.column);
        const label = `${entity.name} filter ${field.name}`;
        const hasTrigram = field.schema['x-list']?.trigram ?? entity.label === field.name;
        const isFew =
          filter.kind === 'boolean' ||
          (filter.kind === 'select' &&
            !field.ref &&
            (field.dict !== undefined || field.schema.enum !== undefined));
        if (field.type === 'array') expect(names, label).toContain(field.column);
        else if (filter.kind === 'text') {
          // "contains": a trigram index for the label and where the schema asks, no other.
          if (hasTrigram) expect(names, label).toContain(field.column);
          else expect(names, label).not.toContain(field.column);
        } else if (!isFew && (field.schema.maxLength ?? 0) <= LONG_TEXT_LENGTH)
          expect(names, label).toContain(btree(field.column));
        // A yes/no or dictionary filter: a btree only when the column is sortable (below).
        if (isFew && !field.isSortable) expect(names, label).not.toContain(btree(field.column));
      }
      for (const column of listColumns(entity).filter((item) => item.isSortable)) {
        const field = entity.fieldsByName.get(column.field);
        if (!field) throw new Error(`${entity.name}: no field ${column.field}`);
        offered.add(field.column);
        if (field.isKey) continue;
        expect(names, `${entity.name} sort ${field.name}`).toContain(btree(field.column));
      }
      // A field the list neither filters (filter bar) nor sorts by has no index of its own
      // (the tree's and the default order's indexes lead with their own fields).
      const ordered = new Set([
        ...entity.defaultSort.map((term) => entity.fieldsByName.get(term.field)?.column),
        ...(entity.tree ? [entity.fieldsByName.get(entity.tree.parent)?.column] : []),
      ]);
      for (const index of indexes) {
        const column = index.columns[entity.isTenantScoped ? 1 : 0] ?? '';
        if (index.name.includes('_default_') || index.name.includes('_tree_') || ordered.has(column))
          continue;
        if (index.columns.join(',') === `${scope}${entity.key.column}`) continue;
        // The owner index of an entity with row data scopes (x-entity.scope, engine/row-scope.ts).
        if (entity.schema['x-entity'].scope && column === 'created_by') continue;
        expect(offered, `${entity.name} index ${index.name}`).toContain(
          index.list?.method === 'btree' ? column : index.columns[0],
        );
      }
    }
  });

  it('gives the hidden columns of users no index (avatar, country code, region)', () => {
    const user = compileEntities(realSources()).find((entity) => entity.name === 'sysuser');
    if (!user) throw new Error('no sysuser');
    const columns = listIndexes(user).flatMap((index) => index.columns);
    for (const column of [
      'avatar',
      'country_code',
      'geographic',
      'phone',
      'address',
      'profile',
      'updated_at',
    ])
      expect(columns, column).not.toContain(column);
    expect(columns).toContain('username');
  });
});

describe('long text', () => {
  const long = entityOf(
    'widget',
    widgetJson({
      properties: {
        ...PROPERTIES,
        content: { type: 'string', title: 'Content', maxLength: 50000, 'x-list': { trigram: true } },
      },
    }),
  );

  it('gets its trigram index but no btree, whose entries could not hold a long value', () => {
    const names = listIndexes(long).map((index) => index.name);
    expect(names).toContain('widget_content_trgm');
    expect(names).not.toContain('widget_tenant_code_content_id_lx');
    expect(names).toContain('widget_tenant_code_name_id_lx');
  });

  it('drops a list index the engine made before and no longer wants, and no other index', () => {
    const spec = entityTableSpec(long);
    const existing = existingFor(spec);
    existing.indexes.add('widget_tenant_code_content_id_lx');
    existing.indexes.add('widget_by_hand');
    const plan = planTableMigration(spec, existing, { hasTrigram: true });
    expect(plan.statements).toEqual(['drop index if exists "widget_tenant_code_content_id_lx"']);
    expect(plan.problems).toEqual([]);
  });

  it('drops the retired list indexes of system columns and the plain tenant index, and no other', () => {
    const spec = entityTableSpec(tenantWidget);
    const existing = existingFor(spec);
    for (const name of [
      'widget_tenant_code_idx',
      'widget_tenant_code_version_id_lx',
      'widget_tenant_code_created_by_id_lx',
      'widget_tenant_code_updated_by_id_lx',
      'widget_tenant_code_updated_at_id_lx',
      'widget_created_by_trgm',
      'widget_updated_by_trgm',
      'widget_by_hand',
      'widget_by_hand_trgm',
      'widget_tenant_code_idx2',
      'widget_name_idx',
    ])
      existing.indexes.add(name);
    const plan = planTableMigration(spec, existing, { hasTrigram: true });
    const dropped = [
      'drop index if exists "widget_created_by_trgm"',
      'drop index if exists "widget_tenant_code_created_by_id_lx"',
      'drop index if exists "widget_tenant_code_idx"',
      'drop index if exists "widget_tenant_code_updated_at_id_lx"',
      'drop index if exists "widget_tenant_code_updated_by_id_lx"',
      'drop index if exists "widget_tenant_code_version_id_lx"',
      'drop index if exists "widget_updated_by_trgm"',
    ];
    expect(plan.statements).toEqual(dropped);
    // An adopted table keeps every index of its own; the engine's retired ones go as anywhere.
    expect(
      planTableMigration({ ...spec, isAdopted: true }, existing, { hasTrigram: true }).statements,
    ).toEqual(dropped);
    // A child table kept as it is is never touched.
    expect(
      planTableMigration({ ...spec, isAdopted: true, isKeptAsIs: true }, existing, { hasTrigram: true })
        .statements,
    ).toEqual([]);
  });
});

describe('indexName', () => {
  it('joins table, columns and suffix', () => {
    expect(indexName('sys_user', ['tenant_code'], 'idx')).toBe('sys_user_tenant_code_idx');
  });

  it('stays within the 63 characters PostgreSQL keeps', () => {
    const name = indexName('a'.repeat(40), ['b'.repeat(40)], 'uq');
    expect(name.length).toBeLessThanOrEqual(63);
    expect(name).toMatch(/_uq\d+$/);
    expect(() => quoteIdentifier(name)).not.toThrow();
  });
});

describe('planTableMigration', () => {
  const spec = entityTableSpec(tenantWidget);

  it('creates a missing table with its indexes', () => {
    const plan = planTableMigration(spec, undefined);
    expect(plan.problems).toEqual([]);
    expect(plan.statements[0]).toBe(
      [
        'create table "widget" (',
        '  "id" bigint generated by default as identity not null,',
        '  "name" text,',
        '  "code" text,',
        '  "owner_id" bigint,',
        '  "price" double precision,',
        '  "is_on" boolean,',
        '  "made_on" date,',
        '  "seen_at" timestamptz,',
        '  "tags" jsonb,',
        '  "meta" jsonb,',
        '  "tenant_code" text not null,',
        '  "created_at" timestamptz not null default now(),',
        '  "created_by" text,',
        '  "updated_at" timestamptz not null default now(),',
        '  "updated_by" text,',
        '  "version" integer not null default 1,',
        '  primary key ("id")',
        ')',
      ].join('\n'),
    );
    expect(plan.statements.slice(1, 3)).toEqual([
      'create unique index if not exists "widget_code_uq" on "widget" ("tenant_code", "code")',
      'create index if not exists "widget_owner_id_idx" on "widget" ("owner_id")',
    ]);
    // Without pg_trgm no trigram index is asked for; the list indexes follow.
    expect(plan.statements.some((statement) => statement.includes('gin_trgm_ops'))).toBe(false);
    expect(plan.statements).toContain(
      'create index if not exists "widget_tenant_code_price_id_lx" on "widget" ("tenant_code", "price" nulls first, "id")',
    );
  });

  it('does nothing when the table matches', () => {
    expect(planTableMigration(spec, existingFor(spec))).toEqual({ statements: [], problems: [] });
  });

  it('adds missing columns; a not-null column without default is added nullable', () => {
    const existing = existingFor(spec);
    for (const name of ['price', 'created_at', 'tenant_code', 'version']) existing.columns.delete(name);
    expect(planTableMigration(spec, existing)).toEqual({
      statements: [
        'alter table "widget" add column "price" double precision',
        'alter table "widget" add column "tenant_code" text',
        'alter table "widget" add column "created_at" timestamptz not null default now()',
        'alter table "widget" add column "version" integer not null default 1',
      ],
      problems: [],
    });
  });

  it('refuses a type change and says what to do', () => {
    const existing = existingFor(spec);
    existing.columns.set('price', 'text');
    const plan = planTableMigration(spec, existing);
    expect(plan.statements).toEqual([]);
    expect(plan.problems).toHaveLength(1);
    expect(plan.problems[0]).toContain(
      'Table widget, column price: the database has text but the schema wants double precision',
    );
    expect(plan.problems[0]).toContain('alter table widget alter column price type double precision using');
  });

  it('compares types as information_schema names them', () => {
    const existing = existingFor(spec);
    expect(existing.columns.get('seen_at')).toBe('timestamp with time zone');
    expect(planTableMigration(spec, existing).problems).toEqual([]);
    existing.columns.set('seen_at', 'timestamp without time zone');
    expect(planTableMigration(spec, existing).problems[0]).toContain(
      'column seen_at: the database has timestamp without time zone',
    );
  });

  it('refuses to drop a column the schema no longer has', () => {
    const existing = existingFor(spec);
    existing.columns.set('colour', 'text');
    const plan = planTableMigration(spec, existing);
    expect(plan.statements).toEqual([]);
    expect(plan.problems).toEqual([
      'Table widget, column colour: the schema no longer has this field. Put the field back, or drop the column yourself once its data is safe (alter table widget drop column colour).',
    ]);
  });

  it('adds a missing index', () => {
    const existing = existingFor(spec);
    existing.indexes.delete('widget_code_uq');
    expect(planTableMigration(spec, existing)).toEqual({
      statements: ['create unique index if not exists "widget_code_uq" on "widget" ("tenant_code", "code")'],
      problems: [],
    });
  });

  it('adds a missing foreign key, once', () => {
    const withFk: TableSpec = {
      ...spec,
      foreignKeys: [
        {
          name: 'widget_owner_fk',
          columns: ['owner_id'],
          refTable: 'owner',
          refColumns: ['id'],
          onDelete: 'restrict',
        },
      ],
    };
    const existing = existingFor(spec);
    expect(planTableMigration(withFk, existing).statements).toEqual([
      'alter table "widget" add constraint "widget_owner_fk" foreign key ("owner_id") references "owner" ("id") on delete restrict',
    ]);
    existing.constraints.add('widget_owner_fk');
    expect(planTableMigration(withFk, existing).statements).toEqual([]);
  });

  it('creates a table with its fillfactor and sets it on an existing table once', () => {
    const filled: TableSpec = { ...spec, fillfactor: 70 };
    expect(planTableMigration(filled, undefined).statements[0]).toMatch(/\n\) with \(fillfactor = 70\)$/);
    // An existing table at PostgreSQL's default gets it (new pages only); one that has it, nothing.
    expect(planTableMigration(filled, existingFor(spec)).statements).toEqual([
      'alter table "widget" set (fillfactor = 70)',
    ]);
    expect(planTableMigration(filled, { ...existingFor(spec), fillfactor: 70 }).statements).toEqual([]);
    // A table that names none keeps what it has; an adopted one is never altered.
    expect(planTableMigration(spec, { ...existingFor(spec), fillfactor: 50 }).statements).toEqual([]);
    expect(planTableMigration({ ...filled, isAdopted: true }, existingFor(spec)).statements).toEqual([]);
  });

  it('refuses an unsafe identifier anywhere in the spec', () => {
    expect(() => planTableMigration({ ...spec, name: 'Widget' }, undefined)).toThrow(
      'Not a safe SQL identifier: Widget',
    );
    const badColumn: TableSpec = {
      ...spec,
      columns: [...spec.columns, { name: 'x"; drop table y; --', type: 'text', isNullable: true }],
    };
    expect(() => planTableMigration(badColumn, undefined)).toThrow(/Not a safe SQL identifier/);
  });
});

describe('planTableMigration of an adopted table (x-entity.adopt)', () => {
  const adopted = entityOf(
    'widget',
    widgetJson({
      entity: { tenant: false, adopt: true },
      properties: { code: PROPERTIES.code, price: PROPERTIES.price },
    }),
  );
  const spec = entityTableSpec(adopted);
  /** A table made before the entity: its own types, a column the entity leaves out, no bookkeeping columns. */
  const legacy = (): ExistingTable => ({
    columns: new Map([
      ['id', 'integer'],
      ['name', 'character varying'],
      ['code', 'character'],
      ['price', 'numeric'],
      ['legacy_flag', 'smallint'],
    ]),
    indexes: new Set(['widget_pkey', 'widget_code_key']),
    constraints: new Set(['widget_pkey']),
  });

  it('marks the spec adopted', () => {
    expect(spec.isAdopted).toBe(true);
    expect(entityTableSpec(tenantWidget).isAdopted).toBeUndefined();
  });

  it('accepts integer, varchar, char and numeric, keeps the columns the entity leaves out, adds only the bookkeeping columns', () => {
    const plan = planTableMigration(spec, legacy(), { hasTrigram: true, isConcurrent: true });
    expect(plan.problems).toEqual([]);
    expect(plan.statements).toEqual([
      'alter table "widget" add column "tenant_code" text',
      'alter table "widget" add column "created_at" timestamptz not null default now()',
      'alter table "widget" add column "created_by" text',
      'alter table "widget" add column "updated_at" timestamptz not null default now()',
      'alter table "widget" add column "updated_by" text',
      'alter table "widget" add column "version" integer not null default 1',
    ]);
    // Never an alter column, a drop or a constraint; the indexes come apart, built concurrently.
    expect(plan.statements.join('\n')).not.toMatch(/index|alter column|drop|constraint/);
    const indexes = plan.concurrentStatements ?? [];
    expect(indexes.length).toBeGreaterThan(0);
    for (const statement of indexes)
      expect(statement).toMatch(/^create index concurrently if not exists "widget_/);
    // Never a unique index; a trigram index only on a text or varchar column (char has none).
    expect(indexes.join('\n')).not.toMatch(/unique/);
    expect(indexes).toContain(
      'create index concurrently if not exists "widget_name_trgm" on "widget" using gin ("name" gin_trgm_ops)',
    );
    expect(indexes.join('\n')).not.toMatch(/"code" gin_trgm_ops/);
    // Those the table has already (by the engine's name) are left alone.
    const again = legacy();
    again.indexes.add('widget_name_trgm');
    expect(
      planTableMigration(spec, again, { hasTrigram: true, isConcurrent: true }).concurrentStatements,
    ).not.toContain(indexes.find((statement) => statement.includes('widget_name_trgm')));
    // Without concurrent builds (PGlite, a publication) they run with the columns.
    const inline = planTableMigration(spec, legacy(), { hasTrigram: true });
    expect(inline.statements.filter((statement) => statement.includes(' index '))).toHaveLength(
      indexes.length,
    );
  });

  it('accepts uuid for a text field and timestamp without time zone for a date-time', () => {
    const typed = entityTableSpec(
      entityOf(
        'widget',
        widgetJson({
          entity: { tenant: false, adopt: true },
          properties: {
            uid: { type: 'string', format: 'uuid', title: 'UID' },
            seenAt: { type: 'string', format: 'date-time', title: 'Seen at' },
          },
        }),
      ),
    );
    const existing = legacy();
    existing.columns.set('uid', 'uuid');
    existing.columns.set('seen_at', 'timestamp without time zone');
    const plan = planTableMigration(typed, existing, { hasTrigram: true, isConcurrent: true });
    expect(plan.problems).toEqual([]);
    expect((plan.concurrentStatements ?? []).join('\n')).not.toMatch(/"uid" gin_trgm_ops/);
  });

  it('accepts the columns x-column keeps as they are: text[], time, bit(1) (issue 33)', () => {
    const typed = entityTableSpec(
      entityOf(
        'widget',
        widgetJson({
          entity: { tenant: false, adopt: true },
          properties: {
            tags: { type: 'array', items: { type: 'string' }, 'x-column': { type: 'array' } },
            opensAt: { type: 'string', 'x-column': { type: 'time' } },
            visible: { type: 'boolean', 'x-column': { type: 'bit' } },
          },
        }),
      ),
    );
    const existing = legacy();
    existing.columns.set('tags', 'ARRAY');
    existing.columns.set('opens_at', 'time without time zone');
    existing.columns.set('visible', 'bit');
    expect(planTableMigration(typed, existing).problems).toEqual([]);
    // Without x-column the same columns are problems, and no ALTER of them is advised.
    const plain = entityTableSpec(
      entityOf(
        'widget',
        widgetJson({
          entity: { tenant: false, adopt: true },
          properties: {
            tags: { type: 'array', items: { type: 'string' } },
            opensAt: { type: 'string' },
            visible: { type: 'boolean' },
          },
        }),
      ),
    );
    const problems = planTableMigration(plain, existing).problems;
    expect(problems).toHaveLength(3);
    expect(problems.join('\n')).not.toMatch(/alter table/i);
  });

  it('still refuses a type that does not serve the field, and never alters it', () => {
    const existing = legacy();
    existing.columns.set('price', 'text');
    existing.columns.set('name', 'timestamp without time zone');
    const plan = planTableMigration(spec, existing);
    expect(plan.problems).toHaveLength(2);
    expect(plan.problems[0]).toContain('column name: the database has timestamp without time zone');
    expect(plan.problems[1]).toContain(
      "column price: the database has text, which the field's schema (double precision) cannot read and write as it is",
    );
    // The other application's table is never converted: no ALTER advised.
    expect(plan.problems.join('\n')).not.toMatch(/alter table/i);
    expect(plan.statements.join('\n')).not.toMatch(/alter column|drop/);
  });

  it('creates the table as any other when it does not exist yet', () => {
    const plan = planTableMigration(spec, undefined);
    expect(plan.statements[0]).toMatch(/^create table "widget"/);
    expect(plan.statements.some((statement) => statement.startsWith('create unique index'))).toBe(true);
  });

  it('is refused by a table that is not adopted', () => {
    const plain = entityTableSpec(
      entityOf(
        'widget',
        widgetJson({
          entity: { tenant: false },
          properties: { code: PROPERTIES.code, price: PROPERTIES.price },
        }),
      ),
    );
    expect(planTableMigration(plain, legacy()).problems.length).toBeGreaterThanOrEqual(4);
  });
});

describe('quoteIdentifier', () => {
  it('quotes safe names', () => {
    expect(quoteIdentifier('sys_user')).toBe('"sys_user"');
    expect(quoteIdentifier('a')).toBe('"a"');
    expect(quoteIdentifier(`a${'b'.repeat(62)}`)).toBe(`"a${'b'.repeat(62)}"`);
  });

  it.each(['', 'Sys', '1a', '_a', 'a b', 'a"b', 'a;b', 'a-b', 'a.b', 'é', 'a\u0000', `a${'b'.repeat(63)}`])(
    'rejects %j',
    (name) => {
      expect(() => quoteIdentifier(name)).toThrow(`Not a safe SQL identifier: ${name}`);
    },
  );
});

describe('row data scope index', () => {
  it('an entity declaring x-entity.scope gets (tenant_code, created_by, key); one that does not, none', () => {
    const entities = compileEntities(realSources());
    const purchase = entities.find((entity) => entity.name === 'purchase');
    const notice = entities.find((entity) => entity.name === 'notice');
    expect(purchase?.schema['x-entity'].scope).toBeDefined();
    expect(listIndexes(purchase!).map((index) => index.columns.join(','))).toContain(
      'tenant_code,created_by,id',
    );
    expect(notice?.schema['x-entity'].scope).toBeUndefined();
    expect(listIndexes(notice!).map((index) => index.columns.join(','))).not.toContain(
      'tenant_code,created_by,id',
    );
  });
});

describe('a table with a recycle bin (x-entity.softDelete)', () => {
  const binned = entityOf('widget', widgetJson({ entity: { softDelete: true }, properties: PROPERTIES }));
  const spec = entityTableSpec(binned);

  it('keeps who deleted a record and when, and makes unique values unique outside the bin', () => {
    expect(spec.columns.filter((column) => column.name.startsWith('deleted_'))).toEqual([
      { name: 'deleted_at', type: 'timestamptz', isNullable: true },
      { name: 'deleted_by', type: 'text', isNullable: true },
    ]);
    const unique = spec.indexes.filter((index) => index.isUnique);
    expect(unique).toEqual([
      {
        name: 'widget_code_live_uq',
        columns: ['tenant_code', 'code'],
        isUnique: true,
        where: 'deleted_at is null',
      },
    ]);
    const plan = planTableMigration(spec, undefined);
    expect(plan.statements).toContain(
      'create unique index if not exists "widget_code_live_uq" on "widget" ("tenant_code", "code") where deleted_at is null',
    );
  });

  it('turned on for an existing table: adds the columns, the partial unique index, and drops the plain one', () => {
    const before = existingFor(entityTableSpec(tenantWidget));
    const plan = planTableMigration(spec, before);
    expect(plan.statements).toEqual(
      expect.arrayContaining([
        'alter table "widget" add column "deleted_at" timestamptz',
        'alter table "widget" add column "deleted_by" text',
        'create unique index if not exists "widget_code_live_uq" on "widget" ("tenant_code", "code") where deleted_at is null',
        'drop index if exists "widget_code_uq"',
      ]),
    );
    expect(plan.problems).toEqual([]);
  });
});

describe('the indexes a list needs (issue 31: an import keeps up every index on every row)', () => {
  const purchase = compileEntities(realSources()).find((entity) => entity.name === 'purchase');
  if (!purchase) throw new Error('no purchase');

  it("derives for purchases the key order, the label's sort and contains, each sortable column, the owner and the bin", () => {
    const spec = entityTableSpec(purchase);
    expect(spec.indexes.map((index) => index.name)).toEqual([
      'portal_purchase_tenant_code_deleted_at_idx',
      'portal_purchase_tenant_code_id_lx',
      'portal_purchase_tenant_code_title_id_lx',
      'portal_purchase_title_trgm',
      'portal_purchase_tenant_code_project_code_id_lx',
      'portal_purchase_tenant_code_buyer_name_id_lx',
      'portal_purchase_tenant_code_budget_id_lx',
      'portal_purchase_tenant_code_deadline_id_lx',
      'portal_purchase_tenant_code_publish_time_id_lx',
      'portal_purchase_tenant_code_created_at_id_lx',
      'portal_purchase_tenant_code_created_by_id_live_lx',
    ]);
    // Their filters stay in the filter bar, answered in the list's order without an index.
    const filters = listFilters(purchase).map((filter) => filter.field);
    for (const name of ['category', 'purchaseMode', 'region', 'published', 'projectCode', 'buyerName'])
      expect(filters, name).toContain(name);
    expect(purchase.fieldsByName.get('published')?.isSortable).toBe(false);
    expect(purchase.fieldsByName.get('category')?.isSortable).toBe(false);
  });

  it('gives a yes/no column no sorter and no btree unless its schema asks; a dictionary filter none unless sortable', () => {
    const flags = entityOf(
      'widget',
      widgetJson({
        properties: {
          isOn: { type: 'boolean' },
          isPinned: { type: 'boolean', 'x-list': { sorter: true } },
          status: { type: 'string', 'x-dict': 'widget_status', 'x-list': { sorter: false } },
          state: { type: 'string', 'x-dict': 'widget_state' },
          ownerId: { type: 'integer', 'x-ref': 'owner', 'x-list': { sorter: false } },
        },
      }),
    );
    expect(flags.fieldsByName.get('isOn')?.isSortable).toBe(false);
    expect(flags.fieldsByName.get('isOn')?.isInFilterBar).toBe(true);
    const names = listIndexes(flags).map((index) => index.name);
    expect(names).not.toContain('widget_tenant_code_is_on_id_lx');
    expect(names).toContain('widget_tenant_code_is_pinned_id_lx');
    expect(names).not.toContain('widget_tenant_code_status_id_lx');
    // Shown, so sortable: its sort needs the btree, which then serves its filter too.
    expect(names).toContain('widget_tenant_code_state_id_lx');
    // A reference's values are many: its equality filter reads one range of its own btree.
    expect(names).toContain('widget_tenant_code_owner_id_id_lx');
  });

  it('drops on an existing database the indexes the rule no longer derives, and builds none again', () => {
    const spec = entityTableSpec(purchase);
    const existing = existingFor(spec);
    const before = [
      'portal_purchase_project_code_trgm',
      'portal_purchase_buyer_name_trgm',
      'portal_purchase_category_trgm',
      'portal_purchase_purchase_mode_trgm',
      'portal_purchase_region_trgm',
      'portal_purchase_tenant_code_category_id_lx',
      'portal_purchase_tenant_code_purchase_mode_id_lx',
      'portal_purchase_tenant_code_region_id_lx',
      'portal_purchase_tenant_code_published_id_lx',
    ];
    for (const name of [...before, 'portal_purchase_by_hand']) existing.indexes.add(name);
    const plan = planTableMigration(spec, existing, { hasTrigram: true, isConcurrent: true });
    expect(plan.statements).toEqual([...before].sort().map((name) => `drop index if exists "${name}"`));
    expect(plan.concurrentStatements).toEqual([]);
    expect(plan.problems).toEqual([]);
  });
});
