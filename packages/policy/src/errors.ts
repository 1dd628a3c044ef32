/** One thing wrong with a rule, found when the policy is compiled. */
export interface PolicyProblem {
  /** The rule's name (or its index, `#2`, when it has none). */
  rule: string;
  /** One sentence that names the rule and, for an expression, the line and column. */
  message: string;
  /** 1-based position in `when`, when the problem has one. */
  line?: number;
  column?: number;
}

/**
 * A policy that cannot be compiled. Its message is the first problem's sentence (what a start-up failure
 * prints); `problems` lists them all (what a management API answers).
 */
export class PolicyError extends Error {
  override readonly name = "PolicyError";
  /** Every problem found, in rule order. */
  readonly problems: readonly PolicyProblem[];

  constructor(problems: readonly PolicyProblem[]) {
    const first = problems[0]?.message ?? "The policy is not valid";
    super(
      problems.length > 1
        ? `${first} (and ${problems.length - 1} more problem${problems.length > 2 ? "s" : ""})`
        : first,
    );
    this.problems = problems;
  }

  /** True when `value` is a {@link PolicyError}. */
  static is(value: unknown): value is PolicyError {
    return value instanceof PolicyError;
  }
}
