import type { FastifyInstance } from 'fastify';
import { serializedRecordOf } from '../../../../engine/index.js';
import { actorOf, ok, requireAuth } from '../../../lib/http.js';
import { localizerFor } from '../../../lib/i18n.js';
import { answer, arrayOf, id, object, text, typed } from '../../../lib/route-schema.js';
import { postOptions, replaceUserPosts, userPostTree } from '../services/posts.js';

/** A post the caller holds (engine PostOption). */
const POST_OPTION = object(
  {
    id: { type: 'integer' },
    postCode: { type: 'string' },
    postName: { type: 'string' },
    postType: { type: 'string', description: 'main | parttime' },
  },
  ['id', 'postCode', 'postName', 'postType'],
);

/**
 * The posts of a user (docs/product.md §7 "Extras", sysuserpost): the post tree with the user's
 * posts marked (querySysUserPostTree), and replacing them in one go (authorizePostToUser).
 */
export async function postRoutes(app: FastifyInstance): Promise<void> {
  const { ctx } = app;
  const { registry } = ctx;
  const api = typed(app);
  const post = registry.require('syspost');
  const userPost = registry.require('sysuserpost');
  const tags = [userPost.name];
  /** The rules the user-post schema gives a field (its values, its length). */
  const ruleOf = (name: string): Record<string, unknown> => {
    const schema = userPost.fieldsByName.get(name)?.schema;
    return {
      ...(schema?.enum ? { enum: schema.enum } : {}),
      ...(schema?.maxLength === undefined ? {} : { maxLength: schema.maxLength }),
    };
  };

  const postRecord = serializedRecordOf(post);
  const postNode = {
    ...postRecord,
    properties: {
      ...(postRecord.properties as Record<string, unknown>),
      checked: { type: 'boolean', description: 'the user holds the post' },
      postType: { type: ['string', 'null'], description: 'main | parttime; null when not held' },
      postDescription: { type: ['string', 'null'], description: "the user's description of it" },
      userPostId: { type: ['integer', 'null'], description: 'the sysuserpost record; null when not held' },
      children: { description: 'the posts below, each a node of this shape (absent on a leaf)' },
    },
  };

  /**
   * GET querySysUserPostTree?userId=: every post of the tenant as a tree; each node carries
   * checked (the user holds it), postType (main | parttime, null when not held), postDescription
   * and userPostId (the sysuserpost record, null when not held).
   */
  api.get(
    `/api/${userPost.api}/querySysUserPostTree`,
    {
      schema: {
        tags,
        summary: "The post tree with the user's posts marked",
        querystring: object({ userId: id() }, ['userId']),
        response: answer({ type: 'array', items: postNode }),
      },
    },
    async (request) =>
      ok(
        await userPostTree({
          ctx,
          actor: actorOf(request),
          l10n: localizerFor(request),
          userId: request.query.userId,
        }),
      ),
  );

  /**
   * GET /api/account/sysuserdetail/queryPostOptions: the posts the caller holds, for the
   * post-switch select (docs/product.md §2.4), main post first: [{id, postCode, postName, postType}].
   * Every signed-in user may call it; querySysUserPostTree is the administrators' view.
   */
  api.get(
    '/api/account/sysuserdetail/queryPostOptions',
    {
      config: { isSelfService: true },
      schema: {
        tags: ['account'],
        summary: 'The posts the caller holds, main post first',
        response: answer(arrayOf(POST_OPTION)),
      },
    },
    async (request) => ok(await postOptions({ ctx, auth: requireAuth(request) })),
  );

  /**
   * POST authorizePostToUser {userId, posts: [{postId, postType, postDescription?}]}: the user's
   * posts become exactly these (an empty list removes them all), in one transaction.
   */
  api.post(
    `/api/${userPost.api}/authorizePostToUser`,
    {
      schema: {
        tags,
        summary: "Replaces the user's posts",
        body: object(
          {
            userId: id(),
            posts: arrayOf(
              object(
                {
                  postId: id(),
                  postType: text(32, ruleOf('postType')),
                  postDescription: text(1000, ruleOf('postDescription')),
                },
                ['postId', 'postType'],
                { additionalProperties: false },
              ),
              { maxItems: 1000 },
            ),
          },
          ['userId', 'posts'],
          { additionalProperties: false },
        ),
        response: answer(object({ linked: { type: 'integer', description: 'posts now held' } }, ['linked'])),
      },
    },
    async (request) =>
      ok(
        await replaceUserPosts({
          ctx,
          actor: actorOf(request),
          l10n: localizerFor(request),
          ...request.body,
        }),
      ),
  );
}
