import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { EntityInputError, type EntityDef } from '../../../../engine/index.js';
import type { Row } from '../../../lib/db/database.js';
import { queryRecords, type CrudRequest, type Page } from '../../crud/index.js';
import type { Actor } from '../../../lib/sql/toolkit.js';
import { entityTitle } from '../../../lib/titles.js';
import { AppError } from '../../../lib/errors.js';
import { ok, queryOf } from '../../../lib/http.js';
import { localizerFor } from '../../../lib/i18n.js';
import { openRecordPolicy } from '../../rbac/index.js';
import { contentFiles, sendFile } from '../../files/index.js';
import { openFileStorage } from '../../../lib/storage/index.js';
import type { PortalAttachment } from '../../../../engine/index.js';
import { publicParams } from '../services/params.js';
import { myPurchaseRoutes } from './my-purchases.js';
import { qrCodeRoutes } from './qrcode.js';

export { PUBLIC_PARAM_KEYS } from '../services/params.js';

/** Bookkeeping columns a visitor has no business seeing. */
const HIDDEN_FIELDS = ['tenantCode', 'createdBy', 'updatedBy', 'version'];
const DEFAULT_PUBLIC_PAGE_SIZE = 10;
const PUBLIC = { config: { isPublic: true } } as const;

type Params = Record<string, unknown>;

function project(row: Row, omit: readonly string[] = []): Row {
  const out: Row = {};
  for (const [name, value] of Object.entries(row)) {
    if (!HIDDEN_FIELDS.includes(name) && !omit.includes(name)) out[name] = value;
  }
  return out;
}

function first(value: unknown): unknown {
  return Array.isArray(value) ? value[0] : value;
}

/** A JSON body or nothing: POST endpoints accept both, the portal sends {} or no body. */
function bodyOf(request: FastifyRequest): Params {
  const body = request.body;
  return typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Params) : {};
}

/** A whole number the route schema read from the query string or the body, or the fallback. */
function wholeNumber(params: Params, name: string, fallback: number): number {
  const value = params[name];
  return typeof value === 'number' ? value : fallback;
}

function readText(params: Params, name: string, maxLength = 100): string | undefined {
  const raw = first(params[name]);
  if (typeof raw !== 'string' && typeof raw !== 'number') return undefined;
  const text = String(raw).split(String.fromCharCode(0)).join('').trim();
  return text === '' ? undefined : text.slice(0, maxLength);
}

interface Paging {
  currentPage: number;
  pageSize: number;
}

/** Paging in range by the route schema (plugins/route-schema-manifest.ts), or the defaults. */
function readPaging(params: Params, defaultSize = DEFAULT_PUBLIC_PAGE_SIZE): Paging {
  return {
    currentPage: wholeNumber(params, 'currentPage', 1),
    pageSize: wholeNumber(params, 'pageSize', defaultSize),
  };
}

function readId(params: Params, name = 'id'): number {
  const id = wholeNumber(params, name, 0);
  if (id === 0) throw new EntityInputError([{ field: `/${name}`, message: 'is required' }]);
  return id;
}

/** The file ids a record's attachments field holds (an id or a list of them). */
function fileIds(value: unknown): number[] {
  const ids = [value].flat().map(Number);
  return [...new Set(ids.filter((id) => Number.isSafeInteger(id) && id > 0))];
}

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

  const crud = (request: FastifyRequest, entity: EntityDef): CrudRequest => {
    const l10n = localizerFor(request);
    // Published records are public; each endpoint projects the fields a visitor reads.
    return { db, registry, entity, actor: visitor, l10n, policy: openRecordPolicy(entity, l10n) };
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
  app.get('/api/notification/home/params', PUBLIC, async () => ok(await publicParams(app.ctx)));
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

  app.get(`${noticeBase}/queryFirst4`, PUBLIC, async (request) => {
    const page = await publishedPage(request, notice, { currentPage: 1, pageSize: 4 });
    return ok(page.records.map((row) => project(row, NOTICE_LIST_OMIT)));
  });

  app.get(`${noticeBase}/queryNotices`, PUBLIC, async (request) => {
    const query = queryOf(request);
    const page = await publishedPage(request, notice, readPaging(query), { title: readText(query, 'title') });
    return ok(listOf(page, NOTICE_LIST_OMIT));
  });

  app.get(`${noticeBase}/queryNotice`, PUBLIC, async (request) =>
    ok(await publishedOne(request, notice, readId(queryOf(request)))),
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
  app.post(`${noticeBase}/queryNoticeDetail`, PUBLIC, async (request) => {
    const id = readId({ ...queryOf(request), ...bodyOf(request) });
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
  });

  /**
   * An attachment of a notice, for anyone while the notice is published (its visibility): a file
   * the notice does not list, or a notice that is not (or no longer) published, is a 404.
   */
  app.route({
    method: ['GET', 'HEAD'],
    url: `${noticeBase}/attachment`,
    ...PUBLIC,
    handler: async (request: FastifyRequest, reply: FastifyReply) => {
      const query = queryOf(request);
      const l10n = localizerFor(request);
      const fileId = readId(query, 'fileId');
      const record = await publishedOne(request, notice, readId(query));
      const [file] = fileIds(record.attachments).includes(fileId)
        ? await contentFiles({ ctx: app.ctx, storage, tenantCode: visitor.tenantCode, ids: [fileId], l10n })
        : [];
      if (!file) throw new AppError('notFound', { entity: l10n.t('files.title'), key: String(fileId) });
      return sendFile({ request, reply, file, disposition: 'attachment' });
    },
  });

  /** The purchase announcements scrolling on the home page. */
  app.post(`${noticeBase}/queryOrderRotation`, PUBLIC, async (request) => {
    const limit = wholeNumber({ ...queryOf(request), ...bodyOf(request) }, 'limit', 10);
    const page = await publishedPage(request, purchase, { currentPage: 1, pageSize: limit });
    return ok(page.records.map((row) => project(row, NOTICE_LIST_OMIT)));
  });

  // Home ----------------------------------------------------------------------------------------
  const home = '/api/notification/home';

  app.post(`${home}/pictures`, PUBLIC, async (request) => {
    const limit = wholeNumber({ ...queryOf(request), ...bodyOf(request) }, 'limit', 8);
    const page = await publishedPage(request, picture, { currentPage: 1, pageSize: limit });
    return ok(page.records.map((row) => project(row)));
  });

  /** Purchase announcements, paged, with a title, category and region filter. */
  app.post(`${home}/order/notices`, PUBLIC, async (request) => {
    const query = { ...bodyOf(request), ...queryOf(request) };
    const page = await publishedPage(request, purchase, readPaging(query), {
      title: readText(query, 'title'),
      category: readText(query, 'category'),
      region: readText(query, 'region'),
    });
    return ok(listOf(page, NOTICE_LIST_OMIT));
  });

  app.post(`${home}/order/detail`, PUBLIC, async (request) =>
    ok(await publishedOne(request, purchase, readId({ ...queryOf(request), ...bodyOf(request) }))),
  );

  /** Idle equipment, paged, with a name and category filter. */
  app.post(`${home}/show/attr`, PUBLIC, async (request) => {
    const params = { ...queryOf(request), ...bodyOf(request) };
    const page = await publishedPage(request, idle, readPaging(params, 12), {
      name: readText(params, 'name'),
      category: readText(params, 'category'),
    });
    return ok(listOf(page, ['description']));
  });

  /** The recommended idle equipment of the home marketing tab: highest rank first, then newest. */
  app.post(`${home}/show/attr/rank`, PUBLIC, async (request) => {
    const limit = wholeNumber({ ...bodyOf(request), ...queryOf(request) }, 'limit', 8);
    const page = await publishedPage(
      request,
      idle,
      { currentPage: 1, pageSize: limit },
      {},
      '-rank,-publishTime,-id',
    );
    return ok(page.records.map((row) => project(row, ['description'])));
  });

  app.post(`${home}/show/detail`, PUBLIC, async (request) =>
    ok(await publishedOne(request, idle, readId({ ...queryOf(request), ...bodyOf(request) }))),
  );
}
