import type { TokenStore } from '../../src/server/features/workflow/services/tokens.js';

/** A token as the memory store holds it (a wf_execution row's part the element behaviours read). */
export interface MemoryToken {
  id: number;
  activityId: string;
  state: 'active' | 'joining' | 'waiting' | 'scope';
  parentId: number | null;
}

/**
 * An instance's tokens in memory: the TokenStore the element behaviours' unit tests hand them in
 * place of the database's (tokens.ts sqlTokens), with the same answers. `reads` counts the
 * questions asked, so a test can tell that a behaviour asked none.
 */
export class MemoryTokens implements TokenStore {
  readonly tokens: MemoryToken[] = [];
  reads = 0;
  private nextId = 1;

  /** A token standing at a node (active unless said otherwise); its id. */
  add(activityId: string, state: MemoryToken['state'] = 'active', parentId: number | null = null): number {
    const id = this.nextId++;
    this.tokens.push({ id, activityId, state, parentId });
    return id;
  }

  /** Where the tokens stand, as `node:state` in id order: what a test compares. */
  standing(): string[] {
    return [...this.tokens].sort((a, b) => a.id - b.id).map((token) => `${token.activityId}:${token.state}`);
  }

  private token(id: number): MemoryToken {
    const token = this.tokens.find((candidate) => candidate.id === id);
    if (!token) throw new Error(`no token ${id}`);
    return token;
  }

  async parentOf(executionId: number): Promise<number | null> {
    this.reads += 1;
    return this.tokens.find((token) => token.id === executionId)?.parentId ?? null;
  }

  async markJoining(executionId: number): Promise<void> {
    this.token(executionId).state = 'joining';
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
    for (const id of executionIds) this.tokens.splice(this.tokens.indexOf(this.token(id)), 1);
  }

  async activate(executionId: number): Promise<void> {
    this.token(executionId).state = 'active';
  }
}
