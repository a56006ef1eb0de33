import { sql } from 'kysely';

/**
 * The mark of a statement sent as a named prepared statement on PostgreSQL (database.ts): the
 * server parses and plans its text once per connection instead of at every call. Put it first
 * in a statement (`sql\`${PREPARED}select …\``) whose text is fixed for a given shape and whose
 * answer names its columns (no `select *` to the client: a table changed later would change a
 * prepared statement's result), on tables that do not follow the entity schemas. The embedded
 * database reads it as a comment.
 */
export const PREPARED_MARK = '/* prepared */ ';
export const PREPARED = sql.raw(PREPARED_MARK);

/** Distinct texts a process prepares (each connection holds at most this many). */
export const PREPARED_CAP = 64;

/**
 * Names the marked texts: the same text gets the same name in every connection of the process;
 * the first PREPARED_CAP distinct texts are named, later ones go unnamed (parsed every time, as
 * unmarked statements are), so the database's per-connection memory stays bounded.
 */
export function preparedNames(cap = PREPARED_CAP): (text: string) => string | undefined {
  const names = new Map<string, string>();
  return (text) => {
    if (!text.startsWith(PREPARED_MARK)) return undefined;
    let name = names.get(text);
    if (name === undefined && names.size < cap) {
      name = `ecobid_p${names.size + 1}`;
      names.set(text, name);
    }
    return name;
  };
}
