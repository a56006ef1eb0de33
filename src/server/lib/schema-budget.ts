import { schemaBudgetProblems, type SchemaBudgetProblem } from '../../engine/index.js';
import { BUDGETS } from './budgets.js';
import { AppError } from './errors.js';
import type { Localizer } from './i18n.js';

/**
 * BUDGETS.schemas applied to an entity or form schema before it is compiled: its size, its
 * enums and its patterns (engine/schema-budget.ts). A form past one is a 400 naming the budget
 * and the JSON pointer of each value past it.
 */
export const schemaBudgetOf = (json: unknown): SchemaBudgetProblem[] =>
  schemaBudgetProblems(json, BUDGETS.schemas);

/** 400 schemaBudget: the budgets gone past, each problem under `prefix` + its pointer. */
export function schemaBudgetError(
  problems: SchemaBudgetProblem[],
  l10n: Localizer,
  prefix: string,
): AppError {
  return new AppError(
    'schemaBudget',
    { budget: [...new Set(problems.map((problem) => problem.budget))].join(', ') },
    problems.map((problem) => ({
      field: `${prefix}${problem.pointer}`,
      message: l10n.t(`budgets.problems.${problem.kind}`, problem.params),
    })),
  );
}

/** Throws schemaBudget when the schema goes past a budget. */
export function assertSchemaBudget(json: unknown, l10n: Localizer, prefix: string): void {
  const problems = schemaBudgetOf(json);
  if (problems.length > 0) throw schemaBudgetError(problems, l10n, prefix);
}
