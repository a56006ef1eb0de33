import { describe, expect, it } from 'vitest';
import {
  APPROVAL_STATES,
  approvalBusinessKey,
  approvalStateOnEnd,
  checkEntitySchema,
  entityTableSpec,
  listColumns,
  listFilters,
  parseBusinessKey,
  planTableMigration,
  type ExistingTable,
  type TableSpec,
} from '../../src/engine/index.js';
import { entityOf, FILE, widgetJson } from './fixtures.js';

/**
 * Approval of records (x-entity.workflow, engine/approval.ts): the vocabulary, the fields and
 * columns the engine adds, and how an instance's end maps onto the record's status.
 */

const WORKFLOW = { process: 'widgetApproval', edit: { review: ['name'] } };
const approved = entityOf('widget', widgetJson({ entity: { workflow: WORKFLOW } }));
const plain = entityOf('widget', widgetJson());

/** information_schema's name of a type where it differs. */
const REPORTED: Record<string, string> = { timestamptz: 'timestamp with time zone' };

function existingFor(spec: TableSpec): ExistingTable {
  return {
    columns: new Map(spec.columns.map((column) => [column.name, REPORTED[column.type] ?? column.type])),
    indexes: new Set(spec.indexes.map((index) => index.name)),
    constraints: new Set(),
  };
}

describe('x-entity.workflow in the meta-schema', () => {
  it('is accepted with a process key and the fields each task may edit', () => {
    expect(checkEntitySchema(FILE, 'widget', widgetJson({ entity: { workflow: WORKFLOW } }))).toEqual([]);
  });

  it('names what is wrong: no process, an unknown or read-only field to edit, a declared approval field, adopt', () => {
    const pointers = (json: unknown): string[] =>
      checkEntitySchema(FILE, 'widget', json).map((problem) => problem.pointer);
    expect(pointers(widgetJson({ entity: { workflow: { edit: {} } } }))).toContain('/x-entity/workflow');
    expect(
      pointers(
        widgetJson({ entity: { workflow: { process: 'p', edit: { review: ['name', 'colour', 'id'] } } } }),
      ),
    ).toEqual(['/x-entity/workflow/edit/review/1', '/x-entity/workflow/edit/review/2']);
    expect(
      pointers(
        widgetJson({
          entity: { workflow: { process: 'p' } },
          properties: { approvalStatus: { type: 'string' } },
        }),
      ),
    ).toEqual(['/properties/approvalStatus']);
    expect(pointers(widgetJson({ entity: { workflow: { process: 'p' }, adopt: true } }))).toContain(
      '/x-entity/workflow',
    );
  });
});

describe('the approval fields the engine adds', () => {
  it('approvalStatus: read-only, listed, filtered by a select of its four values; approvalInstance hidden', () => {
    const status = approved.fieldsByName.get('approvalStatus');
    expect(status).toMatchObject({ isSystem: true, isReadOnly: true, filter: 'select', isInFilterBar: true });
    expect(status?.schema.enum).toEqual([...APPROVAL_STATES]);
    expect(approved.fieldsByName.get('approvalInstance')).toMatchObject({
      isReadOnly: true,
      isListedByDefault: false,
    });
    expect(listColumns(approved).map((column) => column.field)).toContain('approvalStatus');
    expect(listFilters(approved).map((filter) => filter.field)).toContain('approvalStatus');
    expect(plain.fieldsByName.has('approvalStatus')).toBe(false);
  });

  it('columns: the status not null with default draft (existing rows become drafts), the instance nullable; no index', () => {
    const spec = entityTableSpec(approved);
    expect(spec.columns.filter((column) => column.name.startsWith('approval_'))).toEqual([
      { name: 'approval_status', type: 'text', isNullable: false, defaultSql: "'draft'" },
      { name: 'approval_instance', type: 'bigint', isNullable: true },
    ]);
    expect(spec.indexes.map((index) => index.name).filter((name) => name.includes('approval'))).toEqual([]);
    const plan = planTableMigration(spec, existingFor(entityTableSpec(plain)));
    expect(plan.statements).toEqual(
      expect.arrayContaining([
        `alter table "widget" add column "approval_status" text not null default 'draft'`,
        'alter table "widget" add column "approval_instance" bigint',
      ]),
    );
  });
});

describe('business keys and statuses', () => {
  it('a business key names the entity and the key', () => {
    expect(approvalBusinessKey('purchase', 12)).toBe('purchase:12');
    expect(parseBusinessKey('purchase:12')).toEqual({ entity: 'purchase', key: '12' });
    expect(parseBusinessKey('free text')).toBeUndefined();
    expect(parseBusinessKey(':12')).toBeUndefined();
    expect(parseBusinessKey(null)).toBeUndefined();
  });

  it("an instance's end: its normal end approves, a rejection rejects, a termination or withdrawal goes back to draft", () => {
    expect(approvalStateOnEnd('over')).toBe('approved');
    expect(approvalStateOnEnd('rejected')).toBe('rejected');
    expect(approvalStateOnEnd('terminated')).toBe('draft');
    expect(approvalStateOnEnd('withdrawn')).toBe('draft');
  });
});
