import { Code, TrestleError } from "@trestle/core";

/** A tool `uri` with its placeholders filled in. */
export interface ExpandedUrl {
  /** The URL to call. */
  url: URL;
  /** Names of the arguments that filled a placeholder (they are not sent again as query parameters). */
  usedArguments: ReadonlySet<string>;
}

const PLACEHOLDER = /\{([^{}/?#&=\s]+)\}/g;

/**
 * Fills the `{name}` placeholders of a tool's URL template from the call's arguments, each value
 * percent-encoded (so an argument can never add a path segment, a query parameter or change the host's
 * structure), and parses the result.
 *
 * @throws TrestleError InvalidArgument when a placeholder has no argument, the result is not a URL, or its
 *   scheme is not `http:` or `https:`.
 */
export function expandUrlTemplate(template: string, args: Readonly<Record<string, string>>): ExpandedUrl {
  const used = new Set<string>();
  const missing: string[] = [];
  const filled = template.replace(PLACEHOLDER, (_match, name: string) => {
    const value = args[name];
    if (value === undefined) {
      missing.push(name);
      return "";
    }
    used.add(name);
    return encodeURIComponent(value);
  });
  if (missing.length > 0) {
    throw new TrestleError(
      `Missing argument(s) for the URL template: ${[...new Set(missing)].join(", ")}`,
      Code.InvalidArgument,
    );
  }
  let url: URL;
  try {
    url = new URL(filled);
  } catch {
    throw new TrestleError(
      "The tool's uri is not a valid URL once its placeholders are filled",
      Code.InvalidArgument,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new TrestleError(
      `Only http: and https: URLs can be called, not ${url.protocol}`,
      Code.InvalidArgument,
    );
  }
  return { url, usedArguments: used };
}
