import type { Command } from "commander";

/** The shells `trestle completion` writes a script for. */
export const COMPLETION_SHELLS = ["bash", "zsh"] as const;

/** A shell {@link completionScript} supports. */
export type CompletionShell = (typeof COMPLETION_SHELLS)[number];

interface Candidate {
  word: string;
  description: string;
}

/** Every command path (`""`, `"tools"`, `"tools list"`…) and the words that may follow it. */
function commandTable(program: Command): Map<string, Candidate[]> {
  const table = new Map<string, Candidate[]>();
  // `--version` is the program's alone; the other global options are accepted after any command too.
  const globals = program.options.filter((o) => o.long !== "--version");
  const visit = (command: Command, path: string) => {
    const options = command === program ? program.options : [...command.options, ...globals];
    table.set(path, [
      ...command.commands.map((sub) => ({ word: sub.name(), description: sub.description() })),
      ...options.flatMap((o) => (o.long ? [{ word: o.long, description: o.description }] : [])),
      { word: "--help", description: "show help" },
    ]);
    for (const sub of command.commands) visit(sub, path ? `${path} ${sub.name()}` : sub.name());
  };
  visit(program, "");
  return table;
}

/** Quotes text for a single-quoted shell string. */
function quote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

function bash(name: string, table: Map<string, Candidate[]>): string {
  const fn = `_${name.replace(/\W/g, "_")}_completions`;
  const paths = [...table.keys()].filter(Boolean);
  const cases = [...table]
    .map(([path, words]) => `    ${quote(path)}) words=${quote(words.map((w) => w.word).join(" "))} ;;`)
    .join("\n");
  return `# bash completion for ${name}; load it with:  source <(${name} completion bash)
${fn}() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" cmdpath="" word next words="" i
  for ((i = 1; i < COMP_CWORD; i++)); do
    word="\${COMP_WORDS[i]}"
    # After --, the words are another program's: leave them to file completion.
    [[ "$word" == "--" ]] && return 0
    [[ "$word" == -* ]] && continue
    next="\${cmdpath:+$cmdpath }$word"
    case "$next" in
      ${paths.map(quote).join("|")}) cmdpath="$next" ;;
    esac
  done
  case "$cmdpath" in
${cases}
  esac
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -o default -F ${fn} ${name}
`;
}

function zsh(name: string, table: Map<string, Candidate[]>): string {
  const fn = `_${name.replace(/\W/g, "_")}`;
  const paths = [...table.keys()].filter(Boolean);
  const cases = [...table]
    .map(
      ([path, words]) =>
        `    (${quote(path)}) candidates=(${words
          .map((w) => quote(`${w.word.replaceAll(":", "\\:")}:${w.description.replaceAll(":", "\\:")}`))
          .join(" ")}) ;;`,
    )
    .join("\n");
  return `#compdef ${name}
# zsh completion for ${name}; load it with:  source <(${name} completion zsh)
# (or save it as ${fn} in a directory of your fpath)
${fn}() {
  local cmdpath="" word next i
  local -a candidates
  for ((i = 2; i < CURRENT; i++)); do
    word="\${words[i]}"
    # After --, the words are another program's: complete files.
    if [[ "$word" == "--" ]]; then _files; return; fi
    [[ "$word" == -* ]] && continue
    next="\${cmdpath:+$cmdpath }$word"
    case "$next" in
      (${paths.map(quote).join("|")}) cmdpath="$next" ;;
    esac
  done
  case "$cmdpath" in
${cases}
  esac
  _describe -t commands ${quote(name)} candidates
  # Arguments that are files (a tool's JSON, a program to run): offered unless an option is being typed.
  [[ "$PREFIX" == -* ]] || _files
}
if [[ "\${funcstack[1]}" == "${fn}" ]]; then
  ${fn} "$@"
else
  compdef ${fn} ${name}
fi
`;
}

/**
 * A shell completion script for `program`, generated from its commands and options (so it never lags behind
 * them): subcommands and `--options` at each level; file names where an argument is a file.
 */
export function completionScript(program: Command, shell: CompletionShell): string {
  const table = commandTable(program);
  return shell === "bash" ? bash(program.name(), table) : zsh(program.name(), table);
}
