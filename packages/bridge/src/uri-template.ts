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

function decode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** One step of a compiled template: a character, a class of characters, a fork, a capture mark, or the end. */
type Instruction =
  | { op: "char"; code: number }
  /** Any character but `/`, `?`, `#` and `&`: a simple `{name}` expansion. */
  | { op: "segment" }
  /** Any character at all: a reserved `{+name}` expansion. */
  | { op: "any" }
  /** Continue at `first`, and failing that at `second` (the order is the preference). */
  | { op: "fork"; first: number; second: number }
  | { op: "save"; slot: number }
  | { op: "end" };

interface CompiledTemplate {
  program: Instruction[];
  names: string[];
  /** The literal text before the first placeholder and after the last: a cheap check before the scan. */
  prefix: string;
  suffix: string;
}

const SEGMENT_STOPS: ReadonlySet<number> = new Set(["/", "?", "#", "&"].map((c) => c.charCodeAt(0)));

/**
 * Compiles `template` into a program for {@link runProgram}: `{name}` is a greedy run of one or more segment
 * characters, `{+name}` a lazy run of one or more characters, as the regular expressions `([^/?#&]+)` and
 * `(.+?)` would be, so that a URI binds the same values as it always did.
 */
function compile(template: string): CompiledTemplate {
  const program: Instruction[] = [];
  const names: string[] = [];
  const literal = (text: string) => {
    for (let i = 0; i < text.length; i++) program.push({ op: "char", code: text.charCodeAt(i) });
  };
  let last = 0;
  let prefix: string | undefined;
  for (const match of template.matchAll(expression)) {
    const text = template.slice(last, match.index);
    prefix ??= text;
    literal(text);
    const slot = names.length * 2;
    names.push(match[2] as string);
    program.push({ op: "save", slot });
    const loop = program.length;
    program.push(match[1] ? { op: "any" } : { op: "segment" });
    const fork = program.length;
    // Greedy: prefer another character; lazy: prefer leaving the expansion.
    program.push(
      match[1]
        ? { op: "fork", first: fork + 1, second: loop }
        : { op: "fork", first: loop, second: fork + 1 },
    );
    program.push({ op: "save", slot: slot + 1 });
    last = match.index + match[0].length;
  }
  const suffix = template.slice(last);
  literal(suffix);
  program.push({ op: "end" });
  return { program, names, prefix: prefix ?? suffix, suffix: names.length > 0 ? suffix : "" };
}

interface Thread {
  pc: number;
  captures: readonly number[];
}

/**
 * Runs `program` over `input` as a Pike VM: every live thread advances one character at a time, at most one
 * thread per instruction, kept in order of preference. The work is O(input length × program length), with no
 * backtracking, so no URI can make matching quadratic; the first thread (in preference order) to reach the end of
 * the program at the end of the input is the match a backtracking engine would have found.
 */
function runProgram(program: readonly Instruction[], slots: number, input: string): number[] | undefined {
  let current: Thread[] = [];
  let next: Thread[] = [];
  // The step at which each instruction was last added, so a thread reaches an instruction once per step.
  const seen = new Int32Array(program.length).fill(-1);

  const add = (list: Thread[], pc: number, captures: readonly number[], position: number, step: number) => {
    // An explicit stack, in preference order: a deep chain of forks cannot overflow the call stack.
    const stack: Thread[] = [{ pc, captures }];
    while (stack.length > 0) {
      const thread = stack.pop() as Thread;
      if (seen[thread.pc] === step) continue;
      seen[thread.pc] = step;
      const instruction = program[thread.pc] as Instruction;
      if (instruction.op === "fork") {
        stack.push({ pc: instruction.second, captures: thread.captures });
        stack.push({ pc: instruction.first, captures: thread.captures });
      } else if (instruction.op === "save") {
        const captures = thread.captures.slice();
        captures[instruction.slot] = position;
        stack.push({ pc: thread.pc + 1, captures });
      } else {
        list.push(thread);
      }
    }
  };

  add(current, 0, new Array<number>(slots).fill(-1), 0, 0);
  for (let position = 0; position <= input.length; position++) {
    if (current.length === 0) return undefined;
    const code = position < input.length ? input.charCodeAt(position) : -1;
    next = [];
    for (const thread of current) {
      const instruction = program[thread.pc] as Instruction;
      switch (instruction.op) {
        case "end":
          // Anchored at both ends: a thread that ends before the input does is no match.
          if (code === -1) return thread.captures.slice();
          break;
        case "char":
          if (code === instruction.code)
            add(next, thread.pc + 1, thread.captures, position + 1, position + 1);
          break;
        case "segment":
          if (code !== -1 && !SEGMENT_STOPS.has(code))
            add(next, thread.pc + 1, thread.captures, position + 1, position + 1);
          break;
        case "any":
          if (code !== -1) add(next, thread.pc + 1, thread.captures, position + 1, position + 1);
          break;
        default:
          break;
      }
    }
    current = next;
  }
  return undefined;
}

/**
 * Matches `uri` against `template` and returns the variables it binds (percent-decoded), or `undefined` when
 * the URI does not fit the template. `{name}` matches one non-empty segment (no `/`, `?`, `#` or `&`);
 * `{+name}` matches any non-empty text, as short as the rest of the template allows. A template without
 * placeholders matches only itself. Matching takes time linear in the URI's length (times the template's),
 * whatever the URI holds: it never backtracks.
 *
 * @example
 * ```ts
 * matchUriTemplate("file:///{+path}", "file:///etc/hosts"); // { path: "etc/hosts" }
 * ```
 */
export function matchUriTemplate(template: string, uri: string): Record<string, string> | undefined {
  const compiled = compile(template);
  if (compiled.names.length === 0) return template === uri ? {} : undefined;
  if (!uri.startsWith(compiled.prefix) || !uri.endsWith(compiled.suffix)) return undefined;
  const captures = runProgram(compiled.program, compiled.names.length * 2, uri);
  if (!captures) return undefined;
  const variables: Record<string, string> = {};
  compiled.names.forEach((name, i) => {
    variables[name] = decode(uri.slice(captures[i * 2], captures[i * 2 + 1]));
  });
  return variables;
}
