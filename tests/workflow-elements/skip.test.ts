import { describe, expect, it } from 'vitest';
import { skipOf } from '../../src/server/features/workflow/services/elements/skip.js';
import type { ProcessNode } from '../../src/server/features/workflow/services/graph.js';
import { nodeBetween } from '../support/element-graph.js';

/** Skip expressions (Activiti, Flowable) on an activity, without a database. */

const reviewNode = (): Promise<ProcessNode> =>
  nodeBetween(
    '<userTask id="review" name="review" activiti:skipExpression="${skipReview}" xmlns:activiti="http://activiti.org/bpmn"/>',
    'review',
  );

describe('skip expressions', () => {
  it('are read only while the instance enables them', async () => {
    const node = await reviewNode();
    expect(skipOf({ node, variables: { skipReview: true } })).toBe(false);
    expect(skipOf({ node, variables: { skipReview: true, _ACTIVITI_SKIP_EXPRESSION_ENABLED: true } })).toBe(
      true,
    );
    expect(skipOf({ node, variables: { skipReview: true, _FLOWABLE_SKIP_EXPRESSION_ENABLED: 'true' } })).toBe(
      true,
    );
    expect(skipOf({ node, variables: { skipReview: false, _ACTIVITI_SKIP_EXPRESSION_ENABLED: true } })).toBe(
      false,
    );
  });

  it('an expression naming an unset variable is an incident naming the activity and the variable', async () => {
    const node = await reviewNode();
    expect(skipOf({ node, variables: { _ACTIVITI_SKIP_EXPRESSION_ENABLED: true } })).toMatchObject({
      activityId: 'review',
      flowId: null,
      variable: 'skipReview',
    });
  });
});
