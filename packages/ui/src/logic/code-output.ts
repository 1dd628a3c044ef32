import type { CodeExecutionEvent } from "../api/types";

/** One piece of a run's output, on the stream it was written to. */
export interface OutputChunk {
  stream: "stdout" | "stderr" | "info";
  text: string;
}

/** What the console shows of a run. */
export interface RunState {
  phase: "idle" | "starting" | "running" | "finished" | "failed";
  chunks: OutputChunk[];
  exitCode?: number;
  /** The engine's final status (`completed`, `failed`, `timeout`, …). */
  status?: string;
  error?: string;
}

/** A run that has not started. */
export const IDLE_RUN: RunState = { phase: "idle", chunks: [] };

/** The most output the console keeps; the start of a longer output is dropped, with a note. */
export const MAX_OUTPUT_CHARS = 200_000;

function textOf(content: string | string[]): string {
  return Array.isArray(content) ? content.join("") : content;
}

function append(chunks: readonly OutputChunk[], chunk: OutputChunk): OutputChunk[] {
  const last = chunks[chunks.length - 1];
  const next =
    last && last.stream === chunk.stream
      ? [...chunks.slice(0, -1), { stream: chunk.stream, text: last.text + chunk.text }]
      : [...chunks, chunk];
  let total = next.reduce((n, c) => n + c.text.length, 0);
  while (total > MAX_OUTPUT_CHARS && next.length > 1) total -= (next.shift() as OutputChunk).text.length;
  return next;
}

/** The console's state after one event of the run's stream. */
export function applyCodeEvent(state: RunState, event: CodeExecutionEvent): RunState {
  switch (event.event) {
    case "reply": {
      const { outputType, status, exitCode } = event.data;
      const text = textOf(event.data.content);
      if (outputType === "stdout" || outputType === "stderr") {
        return text
          ? { ...state, phase: "running", chunks: append(state.chunks, { stream: outputType, text }) }
          : { ...state, phase: "running" };
      }
      if (outputType === "completion") {
        return {
          ...state,
          phase: "finished",
          status,
          ...(exitCode !== undefined ? { exitCode } : {}),
          chunks: text ? append(state.chunks, { stream: "info", text }) : state.chunks,
        };
      }
      return { ...state, phase: state.phase === "starting" ? "running" : state.phase, status };
    }
    case "error":
      return { ...state, phase: "failed", error: event.data.message };
    case "dropped":
      return {
        ...state,
        chunks: append(state.chunks, {
          stream: "info",
          text: `[${event.data.dropped} replies were lost before the output was read]\n`,
        }),
      };
    case "end":
      return state.phase === "failed" || state.phase === "finished" ? state : { ...state, phase: "finished" };
  }
}

/** The pairs an engine serves, from the registered code execution engines (engine = its sub-type). */
export function enginesOf(
  services: readonly {
    target: { serviceType: string; serviceName: string; serviceSubType?: string; languageName?: string };
  }[],
): { engine: string; language: string }[] {
  const seen = new Map<string, { engine: string; language: string }>();
  for (const { target } of services) {
    if (target.serviceType !== "code-execution-engine" || !target.languageName) continue;
    const engine = target.serviceSubType ?? target.serviceName;
    seen.set(`${engine}/${target.languageName}`, { engine, language: target.languageName });
  }
  return [...seen.values()].sort((a, b) =>
    `${a.engine}/${a.language}`.localeCompare(`${b.engine}/${b.language}`),
  );
}
