import { sql } from 'kysely';
import { EntityInputError, type FieldError, type PostOption } from '../../../../engine/index.js';
import { writeAudit } from '../../../lib/audit.js';
import type { AppContext } from '../../../lib/context.js';
import type { Db, Row } from '../../../lib/db/database.js';
import { inTransaction } from '../../../lib/db/transaction.js';
import { AppError } from '../../../lib/errors.js';
import type { Localizer } from '../../../lib/i18n.js';
import { insertRecords } from '../../../lib/sql/insert-records.js';
import { selectList, table, type Actor } from '../../../lib/sql/toolkit.js';
import { entityTitle } from '../../../lib/titles.js';
import type { AuthContext } from '../../sessions/index.js';
import { buildTree, type TreeNode } from '../../../lib/entity-tree.js';

interface UserPostRow {
  id: number;
  postId: number;
  postType: string;
  postDescription: string | null;
}

export interface HeldPost {
  postId: number;
  postType: string;
  postDescription?: string;
}

interface PostRequest {
  ctx: AppContext;
  actor: Actor;
  l10n: Localizer;
}

/** 404 unless the user is one of the caller's tenant. */
async function assertUser({ ctx, actor, l10n }: PostRequest, db: Db, userId: number): Promise<void> {
  const user = ctx.registry.require('sysuser');
  const found = await sql`select 1 from ${table(user)}
    where id = ${userId} and tenant_code = ${actor.tenantCode}`.execute(db);
  if (found.rows.length === 0) {
    throw new AppError('notFound', { entity: entityTitle(l10n, user), key: String(userId) });
  }
}

async function postsOf(ctx: AppContext, db: Db, tenantCode: string, userId: number): Promise<UserPostRow[]> {
  const userPost = ctx.registry.require('sysuserpost');
  const rows = await sql<UserPostRow>`
    select id, post_id as "postId", post_type as "postType", post_description as "postDescription"
    from ${table(userPost)} where user_id = ${userId} and tenant_code = ${tenantCode} order by id`.execute(
    db,
  );
  return rows.rows;
}

/**
 * Every post of the tenant as a tree; each node carries checked (the user holds it), postType
 * (main | parttime, null when not held), postDescription and userPostId (the sysuserpost record,
 * null when not held).
 */
export async function userPostTree(request: PostRequest & { userId: number }): Promise<TreeNode[]> {
  const { ctx, actor, userId } = request;
  const post = ctx.registry.require('syspost');
  await assertUser(request, ctx.db, userId);
  const held = new Map(
    (await postsOf(ctx, ctx.db, actor.tenantCode, userId)).map((row) => [row.postId, row]),
  );
  const posts = await sql<Row>`select ${selectList(post)} from ${table(post)}
    where tenant_code = ${actor.tenantCode} order by post_sequence asc nulls first, id asc`.execute(ctx.db);
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
  return buildTree(post, marked);
}

/** The posts the caller holds, main post first (the post-switch select, docs/product.md §2.4). */
export async function postOptions({
  ctx,
  auth,
}: {
  ctx: AppContext;
  auth: AuthContext;
}): Promise<PostOption[]> {
  const post = ctx.registry.require('syspost');
  const userPost = ctx.registry.require('sysuserpost');
  const rows = await sql<PostOption>`
    select p.id, p.post_code as "postCode", p.post_name as "postName", up.post_type as "postType"
    from ${table(userPost)} up join ${table(post)} p on p.id = up.post_id and p.tenant_code = up.tenant_code
    where up.user_id = ${auth.userId} and up.tenant_code = ${auth.tenantCode}
    order by case when up.post_type = 'main' then 0 else 1 end, p.post_sequence asc nulls first, p.id asc`.execute(
    ctx.db,
  );
  return rows.rows;
}

/**
 * The user's posts become exactly these (an empty list removes them all), in one transaction:
 * each post once and of the caller's tenant (400 naming the item otherwise).
 */
export async function replaceUserPosts(
  request: PostRequest & { userId: number; posts: HeldPost[] },
): Promise<{ linked: number }> {
  const { ctx, actor, l10n, userId, posts } = request;
  const post = ctx.registry.require('syspost');
  const userPost = ctx.registry.require('sysuserpost');
  const errors: FieldError[] = [];
  const seen = new Set<number>();
  posts.forEach((item, index) => {
    if (seen.has(item.postId)) {
      errors.push({
        field: `/posts/${index}/postId`,
        message: l10n.t('errors.uniqueClash', { value: item.postId }),
      });
    }
    seen.add(item.postId);
  });
  if (errors.length > 0) throw new EntityInputError(errors);
  return inTransaction(ctx.db, async (trx) => {
    await assertUser(request, trx, userId);
    if (seen.size > 0) {
      const found = await sql<{ id: number }>`select id from ${table(post)}
        where id in (${sql.join([...seen])}) and tenant_code = ${actor.tenantCode}`.execute(trx);
      const known = new Set(found.rows.map((row) => row.id));
      posts.forEach((item, index) => {
        if (!known.has(item.postId)) {
          errors.push({
            field: `/posts/${index}/postId`,
            message: l10n.t('errors.refMissing', { entity: entityTitle(l10n, post), key: item.postId }),
          });
        }
      });
      if (errors.length > 0) throw new EntityInputError(errors);
    }
    const before = await postsOf(ctx, trx, actor.tenantCode, userId);
    await sql`delete from ${table(userPost)} where user_id = ${userId} and tenant_code = ${actor.tenantCode}`.execute(
      trx,
    );
    await insertRecords({
      trx,
      registry: ctx.registry,
      entity: userPost,
      actor,
      records: posts.map((item) => ({ userId, ...item })),
    });
    await writeAudit({
      trx,
      actor,
      entries: [
        {
          entity: userPost.name,
          recordKey: `user_id=${userId}`,
          action: 'update',
          before: { posts: before },
          after: { posts },
        },
      ],
    });
    return { linked: posts.length };
  });
}
