import type { FastifyInstance, FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import type { PostOption } from '../../../engine/api-types.js';
import { EntityInputError, toFieldErrors, type FieldError } from '../../../engine/index.js';
import { writeAudit } from '../../lib/audit.js';
import { insertRecords } from '../../lib/sql/insert-records.js';
import { selectList, table } from '../../lib/sql/toolkit.js';
import { entityTitle } from '../../lib/titles.js';
import { buildTree } from '../../services/items/tree.js';
import type { Db, Row } from '../../lib/db/database.js';
import { AppError } from '../../lib/errors.js';
import { actorOf, ok, queryOf, requireAuth } from '../../lib/http.js';
import { localizerFor } from '../../lib/i18n.js';

interface UserPostRow {
  id: number;
  postId: number;
  postType: string;
  postDescription: string | null;
}

/**
 * The posts of a user (SPEC §7 "Extras", sysuserpost): the post tree with the user's posts marked
 * (querySysUserPostTree), and replacing them in one go (authorizePostToUser).
 */
export async function postRoutes(app: FastifyInstance): Promise<void> {
  const { registry } = app.ctx;
  const post = registry.require('syspost');
  const userPost = registry.require('sysuserpost');
  const user = registry.require('sysuser');

  const userIdParam = (request: FastifyRequest): number => {
    const raw = queryOf(request).userId;
    const text = typeof raw === 'string' ? raw.trim() : '';
    if (!/^\d{1,15}$/.test(text)) {
      throw new EntityInputError([
        { field: '/userId', message: localizerFor(request).t('validation.type', { type: 'integer' }) },
      ]);
    }
    return Number(text);
  };

  /** 404 unless the user is one of the caller's tenant. */
  const assertUser = async (db: Db, request: FastifyRequest, userId: number): Promise<void> => {
    const found = await sql`select 1 from ${table(user)}
      where id = ${userId} and tenant_code = ${actorOf(request).tenantCode}`.execute(db);
    if (found.rows.length === 0) {
      throw new AppError('notFound', {
        entity: entityTitle(localizerFor(request), user),
        key: String(userId),
      });
    }
  };

  const postsOf = async (db: Db, tenantCode: string, userId: number): Promise<UserPostRow[]> =>
    (
      await sql<UserPostRow>`select id, post_id as "postId", post_type as "postType", post_description as "postDescription"
      from ${table(userPost)} where user_id = ${userId} and tenant_code = ${tenantCode} order by id`.execute(
        db,
      )
    ).rows;

  /**
   * GET querySysUserPostTree?userId=: every post of the tenant as a tree; each node carries
   * checked (the user holds it), postType (main | parttime, null when not held), postDescription
   * and userPostId (the sysuserpost record, null when not held).
   */
  app.get(`/api/${userPost.api}/querySysUserPostTree`, async (request) => {
    const userId = userIdParam(request);
    const { tenantCode } = actorOf(request);
    await assertUser(app.ctx.db, request, userId);
    const held = new Map((await postsOf(app.ctx.db, tenantCode, userId)).map((row) => [row.postId, row]));
    const posts = await sql<Row>`select ${selectList(post)} from ${table(post)}
      where tenant_code = ${tenantCode} order by post_sequence asc nulls first, id asc`.execute(app.ctx.db);
    const marked = posts.rows.map((row) => {
      const mine = held.get(row.id as number);
      return {
        ...row,
        checked: mine !== undefined,
        postType: mine?.postType ?? null,
        postDescription: mine?.postDescription ?? null,
        userPostId: mine?.id ?? null,
      };
    });
    return ok(buildTree(post, marked));
  });

  /**
   * GET /api/account/sysuserdetail/queryPostOptions: the posts the caller holds, for the
   * post-switch select (SPEC §2.4), main post first: [{id, postCode, postName, postType}].
   * Every signed-in user may call it; querySysUserPostTree is the administrators' view.
   */
  app.get(
    '/api/account/sysuserdetail/queryPostOptions',
    { config: { isSelfService: true } },
    async (request) => {
      const auth = requireAuth(request);
      const rows =
        await sql<PostOption>`select p.id, p.post_code as "postCode", p.post_name as "postName", up.post_type as "postType"
      from ${table(userPost)} up join ${table(post)} p on p.id = up.post_id and p.tenant_code = up.tenant_code
      where up.user_id = ${auth.userId} and up.tenant_code = ${auth.tenantCode}
      order by case when up.post_type = 'main' then 0 else 1 end, p.post_sequence asc nulls first, p.id asc`.execute(
          app.ctx.db,
        );
      return ok(rows.rows);
    },
  );

  const validate = registry.ajv.compile({
    type: 'object',
    properties: {
      userId: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
      posts: {
        type: 'array',
        maxItems: 1000,
        items: {
          type: 'object',
          properties: {
            postId: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
            postType: userPost.fieldsByName.get('postType')?.schema ?? { type: 'string' },
            postDescription: userPost.fieldsByName.get('postDescription')?.schema ?? { type: 'string' },
          },
          required: ['postId', 'postType'],
          additionalProperties: false,
        },
      },
    },
    required: ['userId', 'posts'],
    additionalProperties: false,
  });

  /**
   * POST authorizePostToUser {userId, posts: [{postId, postType, postDescription?}]}: the user's
   * posts become exactly these (an empty list removes them all), in one transaction.
   */
  app.post(`/api/${userPost.api}/authorizePostToUser`, async (request) => {
    const l10n = localizerFor(request);
    if (!validate(request.body ?? {}))
      throw new EntityInputError(toFieldErrors(validate.errors ?? [], l10n.t));
    const body = request.body as {
      userId: number;
      posts: { postId: number; postType: string; postDescription?: string }[];
    };
    const actor = actorOf(request);
    const errors: FieldError[] = [];
    const seen = new Set<number>();
    body.posts.forEach((item, index) => {
      if (seen.has(item.postId)) {
        errors.push({
          field: `/posts/${index}/postId`,
          message: l10n.t('errors.uniqueClash', { value: item.postId }),
        });
      }
      seen.add(item.postId);
    });
    if (errors.length > 0) throw new EntityInputError(errors);
    return ok(
      await app.ctx.db.transaction().execute(async (trx) => {
        await assertUser(trx, request, body.userId);
        if (seen.size > 0) {
          const found = await sql<{ id: number }>`select id from ${table(post)}
            where id in (${sql.join([...seen])}) and tenant_code = ${actor.tenantCode}`.execute(trx);
          const known = new Set(found.rows.map((row) => row.id));
          body.posts.forEach((item, index) => {
            if (!known.has(item.postId)) {
              errors.push({
                field: `/posts/${index}/postId`,
                message: l10n.t('errors.refMissing', {
                  entity: entityTitle(l10n, post),
                  key: item.postId,
                }),
              });
            }
          });
          if (errors.length > 0) throw new EntityInputError(errors);
        }
        const before = await postsOf(trx, actor.tenantCode, body.userId);
        await sql`delete from ${table(userPost)} where user_id = ${body.userId} and tenant_code = ${actor.tenantCode}`.execute(
          trx,
        );
        await insertRecords(
          trx,
          registry,
          userPost,
          actor,
          body.posts.map((item) => ({ userId: body.userId, ...item })),
        );
        await writeAudit(trx, actor, [
          {
            entity: userPost.name,
            recordKey: `user_id=${body.userId}`,
            action: 'update',
            before: { posts: before },
            after: { posts: body.posts },
          },
        ]);
        return { linked: body.posts.length };
      }),
    );
  });
}
