/**
 * The logging the registry needs: pino's method shape (`logger.warn({ fields }, "message")`), so a pino logger
 * can be passed as is. Fields never hold secrets.
 */
export interface RegistryLogger {
  debug(fields: Record<string, unknown>, message: string): void;
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

/** A logger that drops everything: the default, so a library never writes to stdout on its own. */
export const silentLogger: RegistryLogger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
};
