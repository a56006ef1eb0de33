import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAjv, exampleOf } from '../../src/engine/index.js';
import { startTestApp, type TestApp } from '../support/app.js';

/**
 * Fuzzing from the API document (issue 11): for every operation of /api/openapi.json, a seeded
 * random sample of malformed parameters and bodies, sent anonymously and as the administrator.
 * Fails on a 5xx, an answer outside the envelope, a 400 that does not name the field at fault,
 * and database text in an answer. FUZZ_SEED repeats a run, FUZZ_SAMPLES sets the sample size.
 */
type Json = Record<string, unknown>;

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema: Json;
}

interface Operation {
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: Json; example?: unknown }> };
}

const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const SAMPLES = Number(process.env.FUZZ_SAMPLES ?? 8);
/**
 * Answers whose content is about the database by design: the monitor's reports (database kind,
 * tables, connection settings), Prometheus text, and code templates that write SQL. Their errors
 * are still checked for database text.
 */
const REPORTS_DATABASE = /^\/api\/(metrics$|monitor\/|generator\/template\/)/;
const DB_TEXT =
  /invalid byte sequence|syntax error at|violates|relation "|column "|null value in column|duplicate key|out of range for type|sqlstate|pglite|postgres/i;

/** mulberry32: small, fast and the same sequence for the same seed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

const MEGABYTE_TEXT = 'x'.repeat(1024 * 1024);
const deepArray = (depth: number): unknown => JSON.parse(`${'['.repeat(depth)}1${']'.repeat(depth)}`);
const deepObject = (depth: number): unknown => JSON.parse(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`);

/** Malformed values for a JSON field, each with what it is. */
const BODY_VALUES: [string, () => unknown][] = [
  ['number', () => 12345],
  ['negative', () => -1],
  ['huge', () => 1e308],
  ['unsafe integer', () => Number.MAX_SAFE_INTEGER + 2],
  ['fraction', () => 1.5],
  ['boolean', () => true],
  ['null', () => null],
  ['empty text', () => ''],
  ['text', () => 'abc'],
  ['1 MB text', () => MEGABYTE_TEXT.slice(0, 900_000)],
  ['NUL', () => 'a\u0000b'],
  ['control characters', () => '\u0001\u0007\u001b[31m\u007f'],
  ['array for a scalar', () => ['a', 'b']],
  ['nested array', () => [[1]]],
  ['object', () => ({ a: 1 })],
  ['deep nesting', () => deepArray(40)],
  ['deep object', () => deepObject(40)],
  ['prototype key', () => JSON.parse('{"__proto__":{"polluted":true}}') as unknown],
  ['constructor key', () => ({ constructor: { prototype: { polluted: true } } })],
];

/** Malformed query-string values: the query string only carries text (or repeats). */
const QUERY_VALUES: [string, () => string | string[]][] = [
  ['empty', () => ''],
  ['text', () => 'abc'],
  ['negative', () => '-1'],
  ['zero', () => '0'],
  ['huge', () => '99999999999999999999999'],
  ['exponent', () => '1e400'],
  ['fraction', () => '1.5'],
  ['long text', () => 'x'.repeat(20_000)],
  ['NUL', () => 'a\u0000b'],
  ['control characters', () => '\u0001\u001b[31m\u007f'],
  ['repeated', () => ['1', '2']],
  ['SQL', () => "' or 1=1 --"],
  ['JSON', () => '{"a":[1]}'],
];

/** Whole-request mutations: what the body is at fault as a whole. */
const WHOLE_BODIES: [string, { payload: string; type: string }][] = [
  ['invalid JSON', { payload: '{"a":', type: 'application/json' }],
  ['JSON null', { payload: 'null', type: 'application/json' }],
  ['JSON array', { payload: '[1,2]', type: 'application/json' }],
  ['JSON text', { payload: '"text"', type: 'application/json' }],
  ['deep JSON', { payload: `{"a":${'['.repeat(5000)}${']'.repeat(5000)}}`, type: 'application/json' }],
  ['prototype pollution', { payload: '{"__proto__":{"isAdmin":true}}', type: 'application/json' }],
  [
    'constructor pollution',
    { payload: '{"constructor":{"prototype":{"isAdmin":true}}}', type: 'application/json' },
  ],
  ['XML', { payload: '<a>1</a>', type: 'application/xml' }],
  ['text', { payload: 'x=1', type: 'text/plain' }],
  ['multipart', { payload: '--x\r\n\r\n--x--', type: 'multipart/form-data; boundary=x' }],
];

/** Calls that would end the caller's own session or change its password: not sent signed in. */
const SESSION_ENDING = /\/(logout|forceLogout|updatePassword)$/;

const ajv = createAjv({ strict: false, allErrors: false });
const isValid = (schema: Json, value: unknown): boolean => {
  try {
    return ajv.validate(schema, value) === true;
  } catch {
    return true;
  }
};

let t: TestApp;
let operations: { method: string; path: string; operation: Operation }[] = [];
beforeAll(async () => {
  t = await startTestApp({ env: { RATE_LIMIT_TOKEN: '1000000', RATE_LIMIT_CAPTCHA: '1000000' } });
  const document = (await t.request({ method: 'GET', url: '/api/openapi.json' })).json<{
    paths: Record<string, Record<string, Operation>>;
  }>();
  operations = Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({ method: method.toUpperCase(), path, operation })),
  );
}, 300_000);
afterAll(async () => {
  await t?.close();
});

interface Case {
  what: string;
  /** JSON pointer of the one field at fault (a 400 must name it), '' when none is known. */
  field: string;
  options: InjectOptions;
}

function queryString(params: Record<string, string | string[]>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params))
    for (const item of [value].flat()) search.append(name, item);
  const text = search.toString();
  return text ? `?${text}` : '';
}

function casesOf(method: string, path: string, operation: Operation, next: () => number): Case[] {
  const parameters = (operation.parameters ?? []).filter((parameter) => parameter.in === 'query');
  const baseQuery: Record<string, string> = {};
  for (const parameter of parameters.filter((item) => item.required)) {
    const example = exampleOf(parameter.schema);
    baseQuery[parameter.name] = String(Array.isArray(example) ? (example[0] ?? '1') : (example ?? '1'));
  }
  const json = operation.requestBody?.content['application/json'];
  const bodySchema = json?.schema;
  const baseBody = (json?.example ?? exampleOf(bodySchema)) as unknown;
  const hasBody = method !== 'GET';
  // Path parameters get a valid value (a form code for /api/online/{form}/…), so that a bad
  // query or body is the request's only fault.
  const concretePath = path.replace(/\{(\w+)\}/g, (_whole, name: string) => {
    const parameter = (operation.parameters ?? []).find((item) => item.in === 'path' && item.name === name);
    const example = parameter ? exampleOf(parameter.schema) : undefined;
    const value =
      example !== undefined && parameter && isValid(parameter.schema, example) ? String(example) : 'fuzz';
    return encodeURIComponent(value);
  });
  const request = (
    query: Record<string, string | string[]>,
    body: unknown,
    raw?: { payload: string; type: string },
  ): InjectOptions => ({
    method: method as InjectOptions['method'],
    url: `${concretePath}${queryString(query)}`,
    ...(raw
      ? { payload: raw.payload, headers: { 'content-type': raw.type } }
      : hasBody
        ? { payload: JSON.stringify(body ?? {}), headers: { 'content-type': 'application/json' } }
        : {}),
  });
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)] as T;
  const all: (() => Case)[] = [];
  for (const parameter of parameters) {
    all.push(() => {
      const [what, value] = pick(QUERY_VALUES);
      const text = value();
      const atFault = ![text].flat().every((item) => isValid(parameter.schema, item)) || Array.isArray(text);
      return {
        what: `query ${parameter.name}: ${what}`,
        field: atFault && !String(parameter.schema.type).includes('array') ? `/${parameter.name}` : '',
        options: request({ ...baseQuery, [parameter.name]: text }, baseBody),
      };
    });
    if (parameter.required) {
      all.push(() => {
        const { [parameter.name]: _dropped, ...rest } = baseQuery;
        return {
          what: `query ${parameter.name} missing`,
          field: `/${parameter.name}`,
          options: request(rest, baseBody),
        };
      });
    }
  }
  all.push(() => {
    const options = request(baseQuery, baseBody);
    const url = String(options.url);
    return {
      what: 'prototype query keys',
      field: '',
      options: {
        ...options,
        url: `${url}${url.includes('?') ? '&' : '?'}__proto__=x&constructor=y&prototype=z`,
      },
    };
  });
  if (hasBody) {
    const properties = (bodySchema?.properties ?? {}) as Record<string, Json>;
    const required = (bodySchema?.required ?? []) as string[];
    const base =
      typeof baseBody === 'object' && baseBody !== null && !Array.isArray(baseBody) ? (baseBody as Json) : {};
    for (const [name, schema] of Object.entries(properties)) {
      all.push(() => {
        const [what, make] = pick(BODY_VALUES);
        const value = make();
        // The parser refuses prototype keys for the whole body; null and "" mean "no value" to an entity form.
        const atFault =
          !isValid(schema, value) && !/prototype|constructor/.test(what) && value !== null && value !== '';
        return {
          what: `body ${name}: ${what}`,
          field: atFault ? `/${name}` : '',
          options: request(baseQuery, { ...base, [name]: value }),
        };
      });
    }
    for (const name of required) {
      all.push(() => {
        const { [name]: _dropped, ...rest } = base;
        return { what: `body ${name} missing`, field: `/${name}`, options: request(baseQuery, rest) };
      });
    }
    for (const [what, raw] of WHOLE_BODIES)
      all.push(() => ({ what: `body ${what}`, field: '', options: request(baseQuery, undefined, raw) }));
    all.push(() => ({
      what: 'unknown field',
      field: '',
      options: request(baseQuery, { ...base, ['x'.repeat(300)]: 1 }),
    }));
  }
  const cases: Case[] = [];
  for (let index = 0; index < SAMPLES && all.length > 0; index += 1) cases.push(pick(all)());
  return cases;
}

/** What is wrong with an answer, or undefined. */
function problemOf(response: LightMyRequestResponse, field: string, path: string): string | undefined {
  const status = response.statusCode;
  if (status >= 500) return `status ${status}`;
  const isAboutDatabase = status === 200 && REPORTS_DATABASE.test(path);
  if (!isAboutDatabase && DB_TEXT.test(response.body)) return 'database text in the answer';
  const type = String(response.headers['content-type'] ?? '');
  if (status === 200 || status === 304) return undefined;
  if (!type.startsWith('application/json')) return `status ${status} answered as ${type}`;
  let body: { code?: unknown; message?: unknown; errors?: { field?: unknown }[] };
  try {
    body = response.json();
  } catch {
    return 'not JSON';
  }
  if (body.code !== status || typeof body.message !== 'string') return 'outside the envelope';
  if (status === 400 || status === 409) {
    if (!Array.isArray(body.errors)) return 'no errors[]';
    if (status === 400 && field !== '') {
      const fields = body.errors.map((error) => String(error.field));
      if (!fields.some((name) => name === field || name.startsWith(`${field}/`)))
        return `400 does not name ${field} (names ${fields.join(', ') || 'nothing'})`;
    }
  }
  return undefined;
}

describe('fuzzing every operation of the API document', () => {
  it('never answers 5xx, outside the envelope, without the field at fault, or with database text', async () => {
    expect(operations.length).toBeGreaterThan(100);
    const next = random(SEED);
    const failures: string[] = [];
    let sent = 0;
    const started = Date.now();
    for (const caller of ['anonymous', 'admin'] as const) {
      for (const { method, path, operation } of operations) {
        if (caller === 'admin' && SESSION_ENDING.test(path)) continue;
        for (const item of casesOf(method, path, operation, next)) {
          const headers = {
            ...(item.options.headers as Record<string, string> | undefined),
            ...(caller === 'admin' ? t.auth : {}),
          };
          const response = await t.request({ ...item.options, headers });
          sent += 1;
          const problem = problemOf(response, item.field, path);
          if (problem) {
            failures.push(
              `${caller} ${method} ${path} (${item.what}): ${problem} — ${response.body.slice(0, 200)}`,
            );
          }
        }
      }
    }
    console.log(
      `fuzz: ${sent} requests over ${operations.length} operations in ${Date.now() - started} ms, ${failures.length} failures (FUZZ_SEED=${SEED})`,
    );
    expect(failures, `FUZZ_SEED=${SEED}`).toEqual([]);
  }, 600_000);
});
