/** Who is calling: read from the session that the bearer token names. */
export interface AuthContext {
  sessionId: number;
  userId: number;
  username: string;
  tenantCode: string;
  roles: string[];
  clientCode: string;
}

/**
 * The caller of a request: the session, with `roles` narrowed to the roles the caller acts in now
 * (RoleCode header) and `heldRoles` all the roles of the session.
 */
export type RequestAuth = AuthContext & { heldRoles: string[] };
