/**
 * Python's keywords (3.12): a tool or argument may not take one of these names as an identifier. Soft keywords
 * (`match`, `case`, `type`, `_`) are valid names and are not here.
 */
const PYTHON_KEYWORDS: ReadonlySet<string> = new Set(
  (
    "False None True and as assert async await break class continue def del elif else except finally for " +
    "from global if import in is lambda nonlocal not or pass raise return try while with yield"
  ).split(" "),
);

/**
 * Names a tool's identifier may not take: the Python keywords, `call` (the `tools.call(name, args)` method) and
 * `then` (a JavaScript object with a `then` method is taken for a promise).
 */
const RESERVED_TOOL_IDENTIFIERS: ReadonlySet<string> = new Set([...PYTHON_KEYWORDS, "call", "then"]);

/** Names a Python keyword argument may not take: the keywords, and `self` (the stub's methods take `self`). */
const RESERVED_PARAMETER_IDENTIFIERS: ReadonlySet<string> = new Set([...PYTHON_KEYWORDS, "self"]);

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The identifier a name maps to before collisions are resolved:
 *
 * 1. every character other than an ASCII letter, digit or `_` becomes `_` (`get-weather` → `get_weather`,
 *    `2fa.reset` → `2fa_reset`, `café` → `caf_`);
 * 2. a leading run of two or more `_` becomes one (`__init__` → `_init__`: no dunder names, no name mangling);
 * 3. an empty name becomes `_`; a name starting with a digit gets a leading `_` (`2fa_reset` → `_2fa_reset`);
 * 4. a reserved name gets a trailing `_` (`class` → `class_`, `call` → `call_`).
 */
export function baseIdentifier(name: string, reserved: ReadonlySet<string>): string {
  let identifier = name.replace(/[^A-Za-z0-9_]/g, "_").replace(/^__+/, "_");
  if (identifier === "") identifier = "_";
  if (/^[0-9]/.test(identifier)) identifier = `_${identifier}`;
  if (reserved.has(identifier)) identifier = `${identifier}_`;
  return identifier;
}

/**
 * Maps names to identifiers, one each, never two alike. A name that is already its own base identifier keeps
 * it; the other names, in code-unit order of the name, take their base identifier if free, else the first free of
 * `<base>_2`, `<base>_3`, …. So the mapping of a name depends only on the set of names, not on their order, and a
 * name that is a valid identifier is never renamed by another name's arrival.
 */
function assignIdentifiers(names: Iterable<string>, reserved: ReadonlySet<string>): Map<string, string> {
  const unique = [...new Set(names)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const result = new Map<string, string>();
  const taken = new Set<string>();
  const pending: string[] = [];
  for (const name of unique) {
    if (baseIdentifier(name, reserved) === name) {
      result.set(name, name);
      taken.add(name);
    } else pending.push(name);
  }
  for (const name of pending) {
    const base = baseIdentifier(name, reserved);
    let identifier = base;
    for (let n = 2; taken.has(identifier); n++) identifier = `${base}_${n}`;
    result.set(name, identifier);
    taken.add(identifier);
  }
  return result;
}

/**
 * The identifier of each tool: its property of the JavaScript `tools` object and its method of the Python one
 * (the same in both languages). See {@link baseIdentifier} for the rules; collisions are resolved as
 * {@link assignIdentifiers} says. The original name always stays callable as `tools.call(name, args)`.
 *
 * @example
 * ```ts
 * toolIdentifiers(["get-weather", "get_weather", "2fa.reset", "class"]);
 * // Map { "get_weather" → "get_weather", "2fa.reset" → "_2fa_reset", "class" → "class_",
 * //       "get-weather" → "get_weather_2" }
 * ```
 */
export function toolIdentifiers(names: Iterable<string>): Map<string, string> {
  return assignIdentifiers(names, RESERVED_TOOL_IDENTIFIERS);
}

/**
 * The Python keyword-argument name of each of a tool's arguments (`city-name` → `city_name`, `from` → `from_`,
 * `self` → `self_`), by the same rules as tools. JavaScript passes the arguments object as is and needs none.
 */
export function parameterIdentifiers(argumentNames: Iterable<string>): Map<string, string> {
  return assignIdentifiers(argumentNames, RESERVED_PARAMETER_IDENTIFIERS);
}

/** Whether a string can be written bare as a property name in TypeScript (else it is quoted). */
export function isPlainPropertyName(name: string): boolean {
  return IDENTIFIER.test(name);
}
