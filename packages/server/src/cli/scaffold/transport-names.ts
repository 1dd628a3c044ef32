/** The names a new transport package is made with, all derived from the one the user gives. */
export interface TransportNames {
  /** The npm package's name: `trestle-transport-<name>`, or the scoped name as given. */
  readonly packageName: string;
  /** The protocol the transport speaks and a deployer wires it under (`transports.<protocol>`): `kafka`. */
  readonly protocol: string;
  /** The protocol in PascalCase, for identifiers: `createKafkaTransport`, `KafkaTransportOptions`. */
  readonly pascal: string;
  /** The directory written when `--dir` is not given: the package's name without its scope. */
  readonly directory: string;
}

const PACKAGE_PREFIX = "trestle-transport-";
/** Lower-case words of letters and digits joined by single dashes, starting with a letter. */
const WORDS = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;
/** An npm scope: `@` and lower-case letters, digits, dots, dashes and underscores. */
const SCOPE = /^@[a-z0-9][a-z0-9._-]*$/;
/** npm allows 214 characters; a shorter bound keeps file and identifier names readable. */
const MAX_NAME_LENGTH = 100;

/**
 * The names for `trestle new transport NAME`, or `undefined` when NAME cannot make a package: `kafka` makes
 * `trestle-transport-kafka` (protocol `kafka`); `trestle-transport-kafka` is taken as it is; a scoped name
 * (`@acme/kafka`, `@acme/trestle-transport-kafka`) is the package's name, its last part less the prefix the
 * protocol.
 */
export function transportNames(name: string): TransportNames | undefined {
  if (name.length === 0 || name.length > MAX_NAME_LENGTH) return undefined;
  const slash = name.indexOf("/");
  const scope = slash >= 0 ? name.slice(0, slash) : undefined;
  const bare = slash >= 0 ? name.slice(slash + 1) : name;
  if (scope !== undefined && !SCOPE.test(scope)) return undefined;
  if (!WORDS.test(bare)) return undefined;
  const protocol = bare.startsWith(PACKAGE_PREFIX) ? bare.slice(PACKAGE_PREFIX.length) : bare;
  if (!WORDS.test(protocol)) return undefined;
  const unscoped =
    scope === undefined && !bare.startsWith(PACKAGE_PREFIX) ? `${PACKAGE_PREFIX}${bare}` : bare;
  return {
    packageName: scope === undefined ? unscoped : name,
    protocol,
    pascal: protocol
      .split("-")
      .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
      .join(""),
    directory: unscoped,
  };
}
