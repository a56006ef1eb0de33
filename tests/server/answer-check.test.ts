import { describe, expect, it } from 'vitest';
import { closedSchemaOf, createAnswerChecks } from '../../src/server/lib/answer-check.js';

describe('answer check (the integration suite compares every answer with its declared schema)', () => {
  const checkOf = createAnswerChecks();
  const envelope = (data: Record<string, unknown>) => ({
    type: 'object',
    properties: { code: { type: 'integer' }, message: { type: 'string' }, data },
  });
  const answer = checkOf(
    envelope({
      type: 'object',
      properties: { read: { type: 'integer' }, at: { type: 'string', format: 'date-time' } },
      required: ['read'],
    }),
  );

  it('passes an answer as declared, with dates written as JSON writes them', () => {
    expect(answer({ code: 200, message: 'success', data: { read: 2, at: new Date(0) } })).toEqual([]);
  });

  it('names a property the schema does not declare: the serializer would drop it unseen', () => {
    expect(answer({ code: 200, message: 'success', data: { read: 2, unread: 5 } })).toEqual([
      '/data must NOT have additional properties (unread)',
    ]);
  });

  it('names a value of another type and a missing required property', () => {
    expect(answer({ code: 200, message: 'success', data: { read: 'two' } })).toEqual([
      '/data/read must be integer',
    ]);
    expect(answer({ code: 200, message: 'success', data: {} })).toEqual([
      "/data must have required property 'read'",
    ]);
  });

  it('leaves objects that say they take any other property open, and undescribed data free', () => {
    expect(closedSchemaOf({ type: 'object', properties: { a: {} }, additionalProperties: true })).toEqual({
      type: 'object',
      properties: { a: {} },
      additionalProperties: true,
    });
    expect(checkOf(envelope({}))({ code: 200, message: 'success', data: { anything: [1] } })).toEqual([]);
  });
});
