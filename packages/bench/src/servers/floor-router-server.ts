/**
 * The floor router ({@link startFloorRouter}) as a process for the harness: `--capability HOST:PORT` names the
 * echo capability it calls. Prints `{"listening":PORT}` on stdout once it listens.
 */
import { parseArgs } from "node:util";
import { startFloorRouter } from "../floor-router.js";

const { values } = parseArgs({ options: { capability: { type: "string" } } });
const match = /^(.+):(\d+)$/.exec(values.capability ?? "");
if (!match) {
  process.stderr.write("usage: floor-router-server --capability HOST:PORT\n");
  process.exit(2);
}
const floor = await startFloorRouter({ capability: { host: match[1] as string, port: Number(match[2]) } });
process.once("SIGTERM", () => void floor.close().then(() => process.exit(0)));
process.stdout.write(`${JSON.stringify({ listening: Number(new URL(floor.url).port) })}\n`);
