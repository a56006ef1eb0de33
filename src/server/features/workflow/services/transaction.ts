/**
 * Steps taken by the runs of one transaction when one operation runs several instances (a signal
 * thrown across the tenant, a message correlated to several, a call activity): a run opened in
 * that transaction goes on counting from there, so the transaction's step budget (budget.ts) holds
 * for all of them. Keyed by the transaction object, gone with it.
 */
const takenInTransaction = new WeakMap<object, number>();

export const stepsTakenIn = (trx: object): number => takenInTransaction.get(trx) ?? 0;

export function noteStepsTaken(trx: object, steps: number): void {
  takenInTransaction.set(trx, Math.max(steps, stepsTakenIn(trx)));
}
