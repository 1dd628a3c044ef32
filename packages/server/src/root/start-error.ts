import { Code, TrestleError } from "@trestle/core/errors";

/**
 * A setting the router cannot start with, the operator's to fix: its message is one sentence naming the setting
 * and the problem, which `trestle serve` prints as it is, without a stack, before exiting non-zero.
 */
export class StartError extends TrestleError {
  constructor(message: string) {
    super(message, Code.FailedPrecondition);
    this.name = "StartError";
  }
}
