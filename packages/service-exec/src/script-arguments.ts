import { Code, TrestleError } from "@trestle/core";

const ARGUMENT_NAME = /^arg(0|[1-9][0-9]*)$/;

/**
 * The program's argv from the request's arguments: `arg0, arg1, …` in numeric order (the router turns a
 * list of arguments into these names). Each value is one argv entry, never split or interpreted by a shell.
 *
 * @throws TrestleError InvalidArgument for any other argument name, or a gap in the numbering.
 */
export function scriptArguments(args: Readonly<Record<string, string>>): string[] {
  const indexed: [number, string][] = [];
  for (const [name, value] of Object.entries(args)) {
    const match = ARGUMENT_NAME.exec(name);
    if (!match) {
      throw new TrestleError(
        `Argument ${JSON.stringify(name)} is not a positional argument (arg0, arg1, …)`,
        Code.InvalidArgument,
      );
    }
    indexed.push([Number(match[1]), value]);
  }
  indexed.sort((a, b) => a[0] - b[0]);
  indexed.forEach(([index], position) => {
    if (index !== position) {
      throw new TrestleError(
        `Positional arguments must be arg0 … argN without gaps; arg${position} is missing`,
        Code.InvalidArgument,
      );
    }
  });
  return indexed.map(([, value]) => value);
}
