import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  EntityInputError,
  pageSchemaOf,
  serializedRecordOf,
  type EntityDef,
  type PortalAttachment,
} from '../../../../engine/index.js';
import type { Row } from '../../../lib/db/database.js';
import { queryRecords, type CrudRequest, type Page } from '../../crud/index.js';
import type { Actor } from '../../../lib/sql/toolkit.js';
import { entityTitle } from '../../../lib/titles.js';
import { AppError } from '../../../lib/errors.js';
import { ok } from '../../../lib/http.js';
import { localizerFor } from '../../../lib/i18n.js';
import {
  answer,
  arrayOf,
  integer,
  integerOrText,
  object,
  PUBLIC_SECURITY,
  text,
  textOrNumber,
  typed,
} from '../../../lib/route-schema.js';
import { openRecordPolicy } from '../../rbac/index.js';
import { contentFiles, sendFile } from '../../files/index.js';
import { openFileStorage } from '../../../lib/storage/index.js';
import { PUBLIC_PARAM_KEYS, publicParams } from '../services/params.js';
import { myPurchaseRoutes } from './my-purchases.js';
import { qrCodeRoutes } from './qrcode.js';

type Json = Record<string, unknown>;

/** Bookkeeping columns a visitor has no business seeing. */
const HIDDEN_FIELDS = ['tenantCode', 'createdBy', 'updatedBy', 'version'];
const DEFAULT_PUBLIC_PAGE_SIZE = 10;
const PUBLIC = { isPublic: true } as const;
const tags = ['portal'];

/** The largest id a portal call takes. */
const MAX_ID = 2_000_000_000;

/**
 * Parameters of the portal's POST calls come in the query string or a JSON body (the portal
 * sends either): the same names in both, whole numbers as numbers in the query and as numbers or
 * their digits in the body ("5").
 */
const queryAndBody = <const B extends Record<string, Json>, const Q extends Record<string, Json>>(
  body: B,
  query: Q,
) => ({ querystring: object(query), body: object(body) });

const wholeNumber = (maximum: number) => ({ body: integerOrText(1, maximum), query: integer(1, maximum) });
const ID = wholeNumber(MAX_ID);
const LIMIT_20 = wholeNumber(20);
const PAGE = wholeNumber(100_000);
const PAGE_SIZE = wholeNumber(50);
const FILTER = textOrNumber(100);

function project(row: Row, omit: readonly string[] = []): Row {
  const out: Row = {};
  for (const [name, value] of Object.entries(row)) {
    if (!HIDDEN_FIELDS.includes(name) && !omit.includes(name)) out[name] = value;
  }
  return out;
}

/** A record as project() leaves it: the serialized record without the hidden fields and `omit`. */
function publicRecordOf(entity: EntityDef, omit: readonly string[] = []): Json {
  const record = serializedRecordOf(entity);
  const properties = Object.entries(record.properties as Record<string, Json>).filter(
    ([name]) => !HIDDEN_FIELDS.includes(name) && !omit.includes(name),
  );
  return { ...record, properties: Object.fromEntries(properties) };
}

/** The text of a filter, trimmed and bounded; undefined when empty. */
function readText(value: string | number | undefined, maxLength = 100): string | undefined {
  if (value === undefined) return undefined;
  const text = String(value).split(String.fromCharCode(0)).join('').trim();
  return text === '' ? undefined : text.slice(0, maxLength);
}

interface Paging {
  currentPage: number;
  pageSize: number;
}

/** Paging in range by the route schema, or the defaults. */
function readPaging(
  params: { currentPage?: number; pageSize?: number },
  defaultSize = DEFAULT_PUBLIC_PAGE_SIZE,
): Paging {
  return { currentPage: params.currentPage ?? 1, pageSize: params.pageSize ?? defaultSize };
}

/** The id a call requires (the schema leaves it optional: its absence is named by the field). */
function requiredId(id: number | undefined, name = 'id'): number {
  if (id === undefined) throw new EntityInputError([{ field: `/${name}`, message: 'is required' }]);
  return id;
}

/** The file ids a record's attachments field holds (an id or a list of them). */
function fileIds(value: unknown): number[] {
  const ids = [value].flat().map(Number);
  return [...new Set(ids.filter((id) => Number.isSafeInteger(id) && id > 0))];
}

const ATTACHMENT = object(
  {
    id: { type: 'integer' },
    originalFilename: { type: 'string' },
    size: { type: 'number', description: 'KB, two decimals' },
    sizeBytes: { type: 'integer' },
    fileType: { type: 'string' },
    url: { type: 'string', description: 'The download address: no token, while the notice is published' },
  },
  ['id', 'originalFilename', 'size', 'sizeBytes', 'fileType', 'url'],
);

/**
 * The public, read-only side of the portal's content (docs/product.md §7 "Notification and home"): notices,
 * home pictures, purchase announcements and idle equipment, published records only, no sign-in.
 * Reads go through the generated CRUD service with the published filter forced, so the same
 * tenant scoping, sorting and paging rules apply as in the back-office.
 */
export async function portalRoutes(app: FastifyInstance): Promise<void> {
  const { registry, config, db } = app.ctx;
  // Visitors read the default tenant's portal.
  const visitor: Actor = { userId: null, username: 'anonymous', tenantCode: config.defaultTenant };
  const api = typed(app);

  const crud = (request: FastifyRequest, entity: EntityDef): CrudRequest => {
    const l10n = localizerFor(request);
    // Published records are public; each endpoint projects the fields a visitor reads.
    return {
      db,
      registry,
      entity,
      actor: visitor,
      l10n,
      policy: openRecordPolicy(entity, l10n),
      modules: app.ctx.modules,
    };
  };

  /** One page of published records; filters are only the ones each endpoint names. */
  const publishedPage = async (
    request: FastifyRequest,
    entity: EntityDef,
    paging: Paging,
    filters: Record<string, string | undefined> = {},
    sort?: string,
  ): Promise<Page> => {
    const params: Record<string, string> = {
      published: 'true',
      currentPage: String(paging.currentPage),
      pageSize: String(paging.pageSize),
    };
    for (const [name, value] of Object.entries(filters)) if (value !== undefined) params[name] = value;
    if (sort) params.sort = sort;
    return queryRecords(crud(request, entity), params);
  };

  const listOf = (page: Page, omit: readonly string[]): Page => ({
    ...page,
    records: page.records.map((row) => project(row, omit)),
  });

  const publishedOne = async (request: FastifyRequest, entity: EntityDef, id: number): Promise<Row> => {
    const page = await publishedPage(
      request,
      entity,
      { currentPage: 1, pageSize: 1 },
      { [entity.key.name]: String(id) },
    );
    const row = page.records[0];
    if (!row)
      throw new AppError('notFound', { entity: entityTitle(localizerFor(request), entity), key: String(id) });
    return project(row);
  };

  /** The whitelisted portal params (hotline, mailbox, program addresses, …) and the product slug. */
  api.get(
    '/api/notification/home/params',
    {
      config: PUBLIC,
      schema: {
        tags,
        summary: 'Public params (hotline, mailbox, program addresses) and the product slug',
        security: PUBLIC_SECURITY,
        response: answer(
          object(
            {
              product: { type: 'string', description: 'The product slug (/ecobid)' },
              ...Object.fromEntries(
                PUBLIC_PARAM_KEYS.map((key) => [
                  key,
                  { type: 'string', description: 'when the param is set' },
                ]),
              ),
            },
            ['product'],
          ),
        ),
      },
    },
    async () => ok(await publicParams(app.ctx)),
  );
  await app.register(qrCodeRoutes);
  await app.register(myPurchaseRoutes);

  const notice = registry.get('notice');
  const picture = registry.get('homepicture');
  const purchase = registry.get('purchase');
  const idle = registry.get('idleequipment');
  // A SCHEMAS_DIR without the portal's content schemas serves the params only.
  if (!notice || !picture || !purchase || !idle) return;

  const storage = await openFileStorage(app.ctx.config);
  app.addHook('onClose', async () => storage.close());

  // Notices -------------------------------------------------------------------------------------
  const noticeBase = `/api/${notice.api}`;
  const NOTICE_LIST_OMIT = ['content'];
  const IDLE_LIST_OMIT = ['description'];
  const noticeRecord = publicRecordOf(notice);
  const noticeListRecord = publicRecordOf(notice, NOTICE_LIST_OMIT);
  const purchaseRecord = publicRecordOf(purchase);
  const purchaseListRecord = publicRecordOf(purchase, NOTICE_LIST_OMIT);
  const idleRecord = publicRecordOf(idle);
  const idleListRecord = publicRecordOf(idle, IDLE_LIST_OMIT);

  api.get(
    `${noticeBase}/queryFirst4`,
    {
      config: PUBLIC,
      schema: {
        tags,
        summary: 'The first 4 published notices (without their content)',
        security: PUBLIC_SECURITY,
        response: answer(arrayOf(noticeListRecord)),
      },
    },
    async (request) => {
      const page = await publishedPage(request, notice, { currentPage: 1, pageSize: 4 });
      return ok(page.records.map((row) => project(row, NOTICE_LIST_OMIT)));
    },
  );

  api.get(
    `${noticeBase}/queryNotices`,
    {
      config: PUBLIC,
      schema: {
        tags,
        summary: 'Published notices, paged (without their content)',
        security: PUBLIC_SECURITY,
        querystring: object({ currentPage: PAGE.query, pageSize: PAGE_SIZE.query, title: text(100) }),
        response: answer(pageSchemaOf(noticeListRecord)),
      },
    },
    async (request) => {
      const { query } = request;
      const page = await publishedPage(request, notice, readPaging(query), { title: readText(query.title) });
      return ok(listOf(page, NOTICE_LIST_OMIT));
    },
  );

  api.get(
    `${noticeBase}/queryNotice`,
    {
      config: PUBLIC,
      schema: {
        tags,
        summary: 'One published notice',
        security: PUBLIC_SECURITY,
        querystring: object({ id: ID.query }, ['id']),
        response: answer(noticeRecord),
      },
    },
    async (request) => ok(await publishedOne(request, notice, request.query.id)),
  );

  /** The attachments of a published notice, with addresses a visitor can download from. */
  const attachmentsOf = async (request: FastifyRequest, record: Row): Promise<PortalAttachment[]> => {
    const files = await contentFiles({
      ctx: app.ctx,
      storage,
      tenantCode: visitor.tenantCode,
      ids: fileIds(record.attachments),
      l10n: localizerFor(request),
    });
    return files.map(({ record: file }) => ({
      id: file.id,
      originalFilename: file.originalFilename,
      size: file.size,
      sizeBytes: file.sizeBytes,
      fileType: file.fileType,
      url: `${noticeBase}/attachment?id=${String(record.id)}&fileId=${file.id}`,
    }));
  };

  /** A notice with its attachments and the latest other notices, for the detail page. */
  api.post(
    `${noticeBase}/queryNoticeDetail`,
    {
      config: PUBLIC,
      schema: {
        tags,
        summary: 'A notice with its attachments (name, size, download address) and the latest others',
        security: PUBLIC_SECURITY,
        ...queryAndBody({ id: ID.body }, { id: ID.query }),
        response: answer(
          object(
            {
              notice: noticeRecord,
              attachments: arrayOf(ATTACHMENT),
              latest: { ...arrayOf(noticeListRecord), description: 'up to 6 other notices, newest first' },
            },
            ['notice', 'attachments', 'latest'],
          ),
        ),
      },
    },
    async (request) => {
      const id = requiredId({ ...request.query, ...request.body }.id);
      const [record, latest] = await Promise.all([
        publishedOne(request, notice, id),
        publishedPage(request, notice, { currentPage: 1, pageSize: 7 }),
      ]);
      const others = latest.records.filter((row) => row.id !== id).slice(0, 6);
      return ok({
        notice: record,
        attachments: await attachmentsOf(request, record),
        latest: others.map((row) => project(row, NOTICE_LIST_OMIT)),
      });
    },
  );

  /**
   * An attachment of a notice, for anyone while the notice is published (its visibility): a file
   * the notice does not list, or a notice that is not (or no longer) published, is a 404.
   */
  api.route({
    method: ['GET', 'HEAD'],
    url: `${noticeBase}/attachment`,
    config: PUBLIC,
    schema: {
      tags,
      summary: 'An attachment of a published notice, for anyone while the notice is published',
      security: PUBLIC_SECURITY,
      querystring: object({ id: ID.query, fileId: ID.query }, ['id', 'fileId']),
      produces: 'application/octet-stream',
      response: {},
    },
    handler: async (request, reply) => {
      const { id, fileId } = request.query;
      const l10n = localizerFor(request);
      const record = await publishedOne(request, notice, id);
      const [file] = fileIds(record.attachments).includes(fileId)
        ? await contentFiles({ ctx: app.ctx, storage, tenantCode: visitor.tenantCode, ids: [fileId], l10n })
        : [];
      if (!file) throw new AppError('notFound', { entity: l10n.t('files.title'), key: String(fileId) });
      return sendFile({ request, reply, file, disposition: 'attachment' });
    },
  });

  /** The purchase announcements scrolling on the home page. */
  api.post(
    `${noticeBase}/queryOrderRotation`,
    {
      config: PUBLIC,
      schema: {
        tags,
        summary: 'Purchase announcements of the home page (without their content)',
        security: PUBLIC_SECURITY,
        ...queryAndBody({ limit: wholeNumber(30).body }, { limit: wholeNumber(30).query }),
        response: answer(arrayOf(purchaseListRecord)),
      },
    },
    async (request) => {
      const limit = { ...request.query, ...request.body }.limit ?? 10;
      const page = await publishedPage(request, purchase, { currentPage: 1, pageSize: limit });
      return ok(page.records.map((row) => project(row, NOTICE_LIST_OMIT)));
    },
  );

  // Home ----------------------------------------------------------------------------------------
  const home = '/api/notification/home';

  api.post(
    `${home}/pictures`,
    {
      config: PUBLIC,
      schema: {
        tags,
        summary: 'Home pictures',
        security: PUBLIC_SECURITY,
        ...queryAndBody({ limit: LIMIT_20.body }, { limit: LIMIT_20.query }),
        response: answer(arrayOf(publicRecordOf(picture))),
      },
    },
    async (request) => {
      const limit = { ...request.query, ...request.body }.limit ?? 8;
      const page = await publishedPage(request, picture, { currentPage: 1, pageSize: limit });
      return ok(page.records.map((row) => project(row)));
    },
  );

  /** Purchase announcements, paged, with a title, category and region filter. */
  api.post(
    `${home}/order/notices`,
    {
      config: PUBLIC,
      schema: {
        tags,
        summary: 'Purchase announcements, paged (without their content)',
        security: PUBLIC_SECURITY,
        ...queryAndBody(
          {
            currentPage: PAGE.body,
            pageSize: PAGE_SIZE.body,
            title: FILTER,
            category: FILTER,
            region: FILTER,
          },
          {
            currentPage: PAGE.query,
            pageSize: PAGE_SIZE.query,
            title: FILTER,
            category: FILTER,
            region: FILTER,
          },
        ),
        response: answer(pageSchemaOf(purchaseListRecord)),
      },
    },
    async (request) => {
      // The query string's values win over the body's.
      const params = { ...request.body, ...request.query };
      const page = await publishedPage(request, purchase, readPaging(params), {
        title: readText(params.title),
        category: readText(params.category),
        region: readText(params.region),
      });
      return ok(listOf(page, NOTICE_LIST_OMIT));
    },
  );

  api.post(
    `${home}/order/detail`,
    {
      config: PUBLIC,
      schema: {
        tags,
        summary: 'One purchase announcement',
        security: PUBLIC_SECURITY,
        ...queryAndBody({ id: ID.body }, { id: ID.query }),
        response: answer(purchaseRecord),
      },
    },
    async (request) =>
      ok(await publishedOne(request, purchase, requiredId({ ...request.query, ...request.body }.id))),
  );

  /** Idle equipment, paged, with a name and category filter. */
  api.post(
    `${home}/show/attr`,
    {
      config: PUBLIC,
      schema: {
        tags,
        summary: 'Idle equipment, paged (without their description)',
        security: PUBLIC_SECURITY,
        ...queryAndBody(
          { currentPage: PAGE.body, pageSize: PAGE_SIZE.body, name: FILTER, category: FILTER },
          { currentPage: PAGE.query, pageSize: PAGE_SIZE.query, name: FILTER, category: FILTER },
        ),
        response: answer(pageSchemaOf(idleListRecord)),
      },
    },
    async (request) => {
      const params = { ...request.query, ...request.body };
      const page = await publishedPage(request, idle, readPaging(params, 12), {
        name: readText(params.name),
        category: readText(params.category),
      });
      return ok(listOf(page, IDLE_LIST_OMIT));
    },
  );

  /** The recommended idle equipment of the home marketing tab: highest rank first, then newest. */
  api.post(
    `${home}/show/attr/rank`,
    {
      config: PUBLIC,
      schema: {
        tags,
        summary: 'Recommended idle equipment (without their description)',
        security: PUBLIC_SECURITY,
        ...queryAndBody({ limit: LIMIT_20.body }, { limit: LIMIT_20.query }),
        response: answer(arrayOf(idleListRecord)),
      },
    },
    async (request) => {
      // The query string's value wins over the body's.
      const limit = { ...request.body, ...request.query }.limit ?? 8;
      const page = await publishedPage(
        request,
        idle,
        { currentPage: 1, pageSize: limit },
        {},
        '-rank,-publishTime,-id',
      );
      return ok(page.records.map((row) => project(row, IDLE_LIST_OMIT)));
    },
  );

  api.post(
    `${home}/show/detail`,
    {
      config: PUBLIC,
      schema: {
        tags,
        summary: 'One idle equipment',
        security: PUBLIC_SECURITY,
        ...queryAndBody({ id: ID.body }, { id: ID.query }),
        response: answer(idleRecord),
      },
    },
    async (request) =>
      ok(await publishedOne(request, idle, requiredId({ ...request.query, ...request.body }.id))),
  );
}
