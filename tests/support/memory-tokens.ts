import type {
  LoopCounts,
  LoopState,
} from '../../src/server/features/workflow/services/elements/multi-instance.js';
import {
  mergedLocals,
  type LiveToken,
  type MovedState,
  type TokenAt,
  type TokenState,
  type TokenStore,
} from '../../src/server/features/workflow/services/tokens.js';

/** A token as the memory store holds it (a wf_execution row's part the element behaviours read). */
export interface MemoryToken {
  id: number;
  activityId: string;
  state: TokenState;
  parentId: number | null;
  /** A loop's counts, on the token that runs it. */
  loop?: LoopState;
  /** A loop child's own variables. */
  locals?: Record<string, unknown>;
}

/**
 * One instance's tokens in memory (the database's store is scoped to its instance; this one holds
 * no other): the TokenStore the element behaviours' unit tests hand them in
 * place of the database's (tokens.ts sqlTokens), with the same answers. `reads` counts the
 * questions asked, so a test can tell that a behaviour asked none.
 */
export class MemoryTokens implements TokenStore {
  readonly tokens: MemoryToken[] = [];
  reads = 0;
  private nextId = 1;

  /** A token standing at a node (active unless said otherwise); its id. */
  put(activityId: string, state: MemoryToken['state'] = 'active', parentId: number | null = null): number {
    const id = this.nextId++;
    this.tokens.push({ id, activityId, state, parentId });
    return id;
  }

  /** Where the tokens stand, as `node:state` in id order: what a test compares. */
  standing(): string[] {
    return [...this.tokens].sort((a, b) => a.id - b.id).map((token) => `${token.activityId}:${token.state}`);
  }

  /** A change to a token; none to a token that is gone, as an update of no row in the database. */
  private update(id: number, change: Partial<MemoryToken>): void {
    const token = this.tokens.find((candidate) => candidate.id === id);
    if (token) Object.assign(token, change);
  }

  async parentOf(executionId: number): Promise<number | null> {
    this.reads += 1;
    return this.tokens.find((token) => token.id === executionId)?.parentId ?? null;
  }

  async localsAbove(executionId: number): Promise<Record<string, unknown>> {
    this.reads += 1;
    const chain: { locals: Record<string, unknown> | null; counts: LoopCounts | null }[] = [];
    for (
      let token = this.tokens.find((candidate) => candidate.id === executionId);
      token;
      token = this.tokens.find((candidate) => candidate.id === token?.parentId)
    )
      chain.unshift({ locals: token.locals ?? null, counts: token.loop ?? null });
    return mergedLocals(chain);
  }

  async markJoining(executionId: number): Promise<void> {
    this.update(executionId, { state: 'joining' });
  }

  async joiningAt(nodeId: string): Promise<number[]> {
    this.reads += 1;
    return this.tokens
      .filter((token) => token.activityId === nodeId && token.state === 'joining')
      .map((token) => token.id)
      .sort((a, b) => a - b);
  }

  async standingExceptJoiningAt(nodeId: string): Promise<string[]> {
    this.reads += 1;
    return this.tokens
      .filter((token) => !(token.activityId === nodeId && token.state === 'joining'))
      .map((token) => token.activityId);
  }

  async firstJoiningPerJoin(): Promise<{ id: number; activityId: string; parentId: number | null }[]> {
    this.reads += 1;
    const first = new Map<string, MemoryToken>();
    for (const token of [...this.tokens].sort((a, b) => a.id - b.id))
      if (token.state === 'joining' && !first.has(token.activityId)) first.set(token.activityId, token);
    return [...first.values()].map((token) => ({
      id: token.id,
      activityId: token.activityId,
      parentId: token.parentId,
    }));
  }

  async remove(executionIds: number[]): Promise<void> {
    this.tokens.splice(
      0,
      this.tokens.length,
      ...this.tokens.filter((token) => !executionIds.includes(token.id)),
    );
  }

  async activate(executionId: number): Promise<void> {
    this.update(executionId, { state: 'active' });
  }

  async wait(executionId: number): Promise<void> {
    this.update(executionId, { state: 'waiting' });
  }

  async activateOutOfLoop(executionId: number): Promise<void> {
    const token = this.tokens.find((candidate) => candidate.id === executionId);
    if (!token) return;
    token.state = 'active';
    delete token.loop;
  }

  async moveTo(executionId: number, nodeId: string, state?: MovedState): Promise<void> {
    this.update(executionId, state === undefined ? { activityId: nodeId } : { activityId: nodeId, state });
  }

  async stopAt(executionId: number, nodeId: string): Promise<void> {
    this.update(executionId, { state: 'incident', activityId: nodeId });
  }

  async exists(executionId: number): Promise<boolean> {
    this.reads += 1;
    return this.tokens.some((token) => token.id === executionId);
  }

  async at(executionId: number): Promise<TokenAt | undefined> {
    this.reads += 1;
    const token = this.tokens.find((candidate) => candidate.id === executionId);
    return token ? { activityId: token.activityId, parentId: token.parentId } : undefined;
  }

  async waitingAt(executionId: number): Promise<TokenAt | undefined> {
    const token = await this.at(executionId);
    const isWaiting = this.tokens.some((held) => held.id === executionId && held.state === 'waiting');
    return isWaiting ? token : undefined;
  }

  async hasChildren(scopeId: number): Promise<boolean> {
    this.reads += 1;
    return this.tokens.some((token) => token.parentId === scopeId);
  }

  async add(
    nodeId: string,
    parentId: number | null,
    child?: { isScope: boolean; locals: Record<string, unknown> },
  ): Promise<number> {
    const id = this.put(nodeId, child?.isScope === true ? 'scope' : 'active', parentId);
    if (child) this.update(id, { locals: child.locals });
    return id;
  }

  async openLoop(executionId: number, state: LoopState): Promise<void> {
    this.update(executionId, { state: 'loop', loop: state });
  }

  async saveLoop(executionId: number, state: LoopState): Promise<void> {
    this.update(executionId, { loop: state });
  }

  async loopOf(executionId: number): Promise<LoopState | undefined> {
    this.reads += 1;
    return this.tokens.find((token) => token.id === executionId)?.loop;
  }

  async removeChildren(scopeId: number): Promise<void> {
    for (const token of this.tokens.filter((candidate) => candidate.parentId === scopeId))
      this.tokens.splice(this.tokens.indexOf(token), 1);
  }

  async liveAt(nodeIds: string[]): Promise<LiveToken[]> {
    this.reads += 1;
    const live = (token: MemoryToken): token is MemoryToken & { state: LiveToken['state'] } =>
      ['active', 'waiting', 'scope', 'loop'].includes(token.state);
    return this.byId()
      .filter((token) => nodeIds.includes(token.activityId))
      .filter(live)
      .map(({ id, activityId, parentId, state }) => ({ id, activityId, parentId, state }));
  }

  async liveToken(executionId: number, nodeId: string): Promise<LiveToken | undefined> {
    return (await this.liveAt([nodeId])).find((token) => token.id === executionId);
  }

  async wakeWaitingAt(nodeIds: string[]): Promise<(TokenAt & { id: number })[]> {
    const woken = this.byId().filter(
      (token) => token.state === 'waiting' && nodeIds.includes(token.activityId),
    );
    for (const token of woken) token.state = 'active';
    return woken.map(({ id, activityId, parentId }) => ({ id, activityId, parentId }));
  }

  async removeAndAnyLeft(executionId: number): Promise<boolean> {
    this.reads += 1;
    await this.remove([executionId]);
    return this.tokens.length > 0;
  }

  async addAll(nodeIds: string[], parentId: number): Promise<number[]> {
    return nodeIds.map((nodeId) => this.put(nodeId, 'active', parentId));
  }

  async removeFromScope(
    executionId: number,
  ): Promise<{ scope: TokenAt & { id: number; state: TokenState }; othersLeft: boolean } | undefined> {
    this.reads += 1;
    const parentId = this.tokens.find((token) => token.id === executionId)?.parentId ?? null;
    await this.remove([executionId]);
    const scope = this.tokens.find((token) => token.id === parentId);
    if (!scope) return undefined;
    return {
      scope: { id: scope.id, activityId: scope.activityId, parentId: scope.parentId, state: scope.state },
      othersLeft: this.tokens.some((token) => token.parentId === scope.id),
    };
  }

  private byId(): MemoryToken[] {
    return [...this.tokens].sort((a, b) => a.id - b.id);
  }
}
