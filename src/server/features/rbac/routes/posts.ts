import type { FastifyInstance, FastifyRequest } from 'fastify';
import { EntityInputError, toFieldErrors } from '../../../../engine/index.js';
import { actorOf, ok, requireAuth, requiredNumberParam } from '../../../lib/http.js';
import { localizerFor } from '../../../lib/i18n.js';
import { answer, arrayOf, object, typed } from '../../../lib/route-schema.js';
import { postOptions, replaceUserPosts, userPostTree, type HeldPost } from '../services/posts.js';

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
 * The posts of a user (SPEC §7 "Extras", sysuserpost): the post tree with the user's posts marked
 * (querySysUserPostTree), and replacing them in one go (authorizePostToUser).
 */
export async function postRoutes(app: FastifyInstance): Promise<void> {
  const { ctx } = app;
  const { registry } = ctx;
  const userPost = registry.require('sysuserpost');

  /** The route schema (plugins/route-schema-manifest.ts) has made userId a whole number from 1 up. */
  const userIdParam = (request: FastifyRequest): number => requiredNumberParam(request, 'userId');

  /**
   * GET querySysUserPostTree?userId=: every post of the tenant as a tree; each node carries
   * checked (the user holds it), postType (main | parttime, null when not held), postDescription
   * and userPostId (the sysuserpost record, null when not held).
   */
  app.get(`/api/${userPost.api}/querySysUserPostTree`, async (request) =>
    ok(
      await userPostTree({
        ctx,
        actor: actorOf(request),
        l10n: localizerFor(request),
        userId: userIdParam(request),
      }),
    ),
  );

  /**
   * GET /api/account/sysuserdetail/queryPostOptions: the posts the caller holds, for the
   * post-switch select (SPEC §2.4), main post first: [{id, postCode, postName, postType}].
   * Every signed-in user may call it; querySysUserPostTree is the administrators' view.
   */
  typed(app).get(
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
    const body = request.body as { userId: number; posts: HeldPost[] };
    return ok(await replaceUserPosts({ ctx, actor: actorOf(request), l10n, ...body }));
  });
}
