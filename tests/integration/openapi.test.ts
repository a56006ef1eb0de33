import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';

interface Operation {
  tags: string[];
  summary: string;
  security?: unknown[];
  parameters?: { name: string; in: string; schema: unknown }[];
  requestBody?: { content: Record<string, { schema: unknown; example?: unknown }> };
  responses: Record<string, { content?: Record<string, { schema: unknown; example?: unknown }> }>;
}

interface Document {
  openapi: string;
  tags: { name: string }[];
  components: { securitySchemes: Record<string, unknown> };
  paths: Record<string, Record<string, Operation>>;
}

/** The OpenAPI document lists every route the server registers, with its schema. */
let t: TestApp;
let document: Document;
beforeAll(async () => {
  t = await startTestApp();
  const response = await t.request({ method: 'GET', url: '/api/openapi.json' });
  expect(response.statusCode).toBe(200);
  document = response.json<Document>();
}, 300_000);
afterAll(async () => {
  await t?.close();
});

const apiRoutes = () =>
  t.app.routeTable
    .filter((route) => route.url.startsWith('/api/'))
    .map((route) => ({ method: route.method.toLowerCase(), path: route.url.replace(/:(\w+)/g, '{$1}') }));

describe('/api/openapi.json', () => {
  it('has every /api route of the route table, and nothing else', () => {
    const routes = apiRoutes();
    expect(routes.length).toBeGreaterThan(100);
    const missing = routes.filter((route) => !document.paths[route.path]?.[route.method]);
    expect(missing, 'registered but not documented').toEqual([]);
    const documented = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method} ${path}`),
    );
    const registered = new Set(routes.map((route) => `${route.method} ${route.path}`));
    expect(
      documented.filter((entry) => !registered.has(entry)),
      'documented but not registered',
    ).toEqual([]);
  });

  it('gives every route a declared schema: a tag, a summary and a 200 answer', () => {
    const undeclared = t.app.routeSchemas
      .filter((route) => !route.schema.tags?.length || !route.schema.summary)
      .map((route) => `${route.method} ${route.url}`);
    expect(undeclared).toEqual([]);
    for (const [path, methods] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        expect(operation.tags.length, `${method} ${path}`).toBeGreaterThan(0);
        expect(operation.responses['200'], `${method} ${path}`).toBeDefined();
        expect(operation.responses['400'], `${method} ${path}`).toBeDefined();
      }
    }
  });

  it('tags operations by module and names its security schemes; public routes need none', () => {
    const tags = document.tags.map((tag) => tag.name);
    for (const tag of ['auth', 'account', 'portal', 'docs', 'sysuser', 'sysrole', 'sysmenu'])
      expect(tags).toContain(tag);
    expect(Object.keys(document.components.securitySchemes)).toEqual(
      expect.arrayContaining(['bearer', 'clientBasic']),
    );
    expect(document.paths['/api/notification/home/params']?.get?.security).toEqual([]);
    expect(document.paths['/api/admin/sysuser/query']?.get?.security).toBeUndefined();
    expect(document.paths['/api/admin/sysuser/query']?.get?.responses['401']).toBeDefined();
  });

  it("describes the data of every JSON answer (what a client may rely on, and what the suite's answer check compares)", () => {
    const isDescribed = (schema: Record<string, unknown> | undefined): boolean => {
      if (!schema) return false;
      const open = schema.type === 'object' && schema.properties === undefined && !schema.description;
      const says = ['type', 'properties', 'items', 'enum', 'const', 'anyOf', 'oneOf', 'allOf', 'description'];
      return !open && says.some((keyword) => schema[keyword] !== undefined);
    };
    const undescribed = t.app.routeSchemas
      .filter((route) => route.schema.produces === undefined)
      .filter((route) => {
        const answer = (route.schema.response as Record<string, Record<string, unknown>> | undefined)?.[200];
        const properties = answer?.properties as Record<string, Record<string, unknown>> | undefined;
        // The envelope's data, or a bare answer that is not an envelope (the token, the document).
        return !isDescribed(properties?.data ?? (properties ? answer : undefined));
      })
      .map((route) => `${route.method} ${route.url}`);
    expect(undescribed).toEqual([]);
  });

  it('carries examples of bodies and answers', () => {
    const add = document.paths['/api/admin/sysuser/add']?.post;
    const example = add?.requestBody?.content['application/json']?.example as Record<string, unknown>;
    expect(example).toHaveProperty('username');
    const token = document.paths['/api/uaa/oauth/token']?.post;
    expect(token?.requestBody?.content['application/x-www-form-urlencoded']?.example).toMatchObject({
      grant_type: 'password',
      username: 'admin',
    });
    const query = document.paths['/api/admin/sysuser/query']?.get;
    expect(query?.responses['200']?.content?.['application/json']?.example).toMatchObject({
      code: 200,
      message: 'success',
    });
    expect(query?.parameters?.map((parameter) => parameter.name)).toEqual(
      expect.arrayContaining(['currentPage', 'pageSize', 'sort', 'username']),
    );
  });
});
