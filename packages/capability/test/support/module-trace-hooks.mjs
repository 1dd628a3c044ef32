// Module customisation hooks (run on the loader's thread): append each loaded URL to the trace file.
import { appendFileSync } from "node:fs";

const traceFile = process.env.TRESTLE_MODULE_TRACE;

export async function load(url, context, nextLoad) {
  if (traceFile) appendFileSync(traceFile, `${url}\n`);
  return nextLoad(url, context);
}
