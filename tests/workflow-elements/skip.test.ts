import { describe, expect, it } from 'vitest';
import { skipOf } from '../../src/server/features/workflow/services/elements/skip.js';
import { parseBpmn } from '../../src/server/features/workflow/services/parse.js';
import { bpmn, flow } from '../support/workflow.js';

/** Skip expressions (Activiti, Flowable) on an activity, without a database. */

const FILE = bpmn(
  'skipping',
  `<startEvent id="s"/>${flow('f0', 's', 'review')}
  <userTask id="review" name="review" activiti:skipExpression="\${skipReview}" xmlns:activiti="http://activiti.org/bpmn"/>
  ${flow('f1', 'review', 'e')}<endEvent id="e"/>`,
);

async function reviewNode() {
  const outcome = await parseBpmn(FILE);
  expect(outcome.problems).toEqual([]);
  return outcome.graph!.nodes.review!;
}

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
