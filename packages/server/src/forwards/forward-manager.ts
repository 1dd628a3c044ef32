/**
 * The forward types under their former module name, for code written before forwards were split into a
 * directory, a supervisor and a service. New code imports `./forward-view.js`.
 */
export type { ForwardState, ForwardStatus, ForwardView } from "./forward-view.js";
