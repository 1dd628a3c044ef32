/**
 * Resource URI templates: a resource's `location` may hold `{name}` placeholders (RFC 6570 simple string
 * expansion: one path segment or query value, percent-encoded) and `{+name}` placeholders (reserved expansion:
 * any text, slashes included). These are the two forms resource templates use in practice.
 */

const expression = /\{(\+?)([A-Za-z0-9_.%]+)\}/g;

/** The variable names in `template`, in order of appearance. */
export function uriTemplateVariables(template: string): string[] {
  return [...template.matchAll(expression)].map((m) => m[2] as string);
}

/** True when `location` holds at least one `{var}` placeholder, i.e. it describes a resource template. */
export function isUriTemplate(location: string): boolean {
  return uriTemplateVariables(location).length > 0;
}

/** Reserved expansion keeps URI characters as they are and encodes only what cannot appear in a URI. */
function encodeReserved(value: string): string {
  return encodeURI(value).replace(/%25([0-9A-Fa-f]{2})/g, "%$1");
}

/**
 * Expands `template` with `variables`: `{name}` → the value, percent-encoded; `{+name}` → the value with
 * reserved characters (such as `/`) kept. A variable without a value expands to "".
 *
 * @example
 * ```ts
 * expandUriTemplate("weather://{city}/today", { city: "São Paulo" }); // "weather://S%C3%A3o%20Paulo/today"
 * ```
 */
export function expandUriTemplate(template: string, variables: Readonly<Record<string, string>>): string {
  return template.replace(expression, (_, reserved: string, name: string) => {
    const value = variables[name] ?? "";
    return reserved ? encodeReserved(value) : encodeURIComponent(value);
  });
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function decode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/**
 * Matches `uri` against `template` and returns the variables it binds (percent-decoded), or `undefined` when
 * the URI does not fit the template. `{name}` matches one non-empty segment (no `/`, `?`, `#` or `&`);
 * `{+name}` matches any non-empty text. A template without placeholders matches only itself.
 *
 * @example
 * ```ts
 * matchUriTemplate("file:///{+path}", "file:///etc/hosts"); // { path: "etc/hosts" }
 * ```
 */
export function matchUriTemplate(template: string, uri: string): Record<string, string> | undefined {
  const names: string[] = [];
  let pattern = "^";
  let last = 0;
  for (const match of template.matchAll(expression)) {
    pattern += escapeRegExp(template.slice(last, match.index));
    pattern += match[1] ? "(.+?)" : "([^/?#&]+)";
    names.push(match[2] as string);
    last = match.index + match[0].length;
  }
  pattern += `${escapeRegExp(template.slice(last))}$`;
  const found = new RegExp(pattern, "s").exec(uri);
  if (!found) return undefined;
  const variables: Record<string, string> = {};
  names.forEach((name, i) => {
    variables[name] = decode(found[i + 1] as string);
  });
  return variables;
}
