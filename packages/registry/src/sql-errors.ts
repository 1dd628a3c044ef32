/** The SQLSTATE and constraint of a database error, when it is one. */
export function databaseErrorOf(error: unknown): { code: string; constraint?: string } | undefined {
  if (typeof error !== "object" || error === null || !("code" in error) || typeof error.code !== "string") {
    return undefined;
  }
  const constraint =
    "constraint" in error && typeof error.constraint === "string" ? error.constraint : undefined;
  return constraint === undefined ? { code: error.code } : { code: error.code, constraint };
}

/** SQLSTATE of a unique constraint violation. */
export const UNIQUE_VIOLATION = "23505";
/** SQLSTATE of a foreign key violation. */
export const FOREIGN_KEY_VIOLATION = "23503";
