import { useEffect, useRef, useState } from "preact/hooks";
import { useApi, useLoad } from "../components/api-context";
import { Alert, Badge, Empty, PageHeader } from "../components/bits";
import { applyCodeEvent, enginesOf, IDLE_RUN, type RunState } from "../logic/code-output";

const SAMPLE: Record<string, string> = {
  javascript:
    'let i = 0;\nconst timer = setInterval(() => {\n  console.log("tick", ++i);\n  if (i === 3) clearInterval(timer);\n}, 300);',
  python: 'import time\nfor i in range(1, 4):\n    print(f"tick {i}", flush=True)\n    time.sleep(0.3)',
  bash: 'for i in 1 2 3; do echo "tick $i"; sleep 0.3; done',
};

/** Runs code on a registered engine and shows its stdout and stderr as they stream. */
export function ConsolePage() {
  const { client, report } = useApi();
  const services = useLoad((api) => api.listServices(), []);
  const engines = enginesOf(services.data ?? []);
  const [choice, setChoice] = useState("");
  const [code, setCode] = useState("");
  const [timeoutSeconds, setTimeoutSeconds] = useState("30");
  const [run, setRun] = useState<RunState>(IDLE_RUN);
  const running = useRef<AbortController | undefined>(undefined);
  const selected = engines.find((e) => `${e.engine}/${e.language}` === choice) ?? engines[0];

  useEffect(() => () => running.current?.abort(), []);
  useEffect(() => {
    if (selected && !code) setCode(SAMPLE[selected.language] ?? "");
  }, [selected, code]);

  async function start(event: Event) {
    event.preventDefault();
    if (!selected) return;
    running.current?.abort();
    const controller = new AbortController();
    running.current = controller;
    setRun({ phase: "starting", chunks: [] });
    const seconds = Number(timeoutSeconds);
    try {
      const task = await client.startCode(selected.engine, selected.language, {
        code,
        ...(Number.isFinite(seconds) && seconds > 0 ? { timeout: Math.round(seconds * 1000) } : {}),
      });
      for await (const output of client.codeOutput(task.taskId, controller.signal)) {
        setRun((state) => applyCodeEvent(state, output));
      }
    } catch (failure) {
      const message = controller.signal.aborted ? "Stopped: the run was cancelled." : report(failure);
      setRun((state) => ({ ...state, phase: "failed", error: message }));
    } finally {
      if (running.current === controller) running.current = undefined;
    }
  }

  const active = run.phase === "starting" || run.phase === "running";
  return (
    <section>
      <PageHeader title="Code console" />
      {services.error && <Alert>{services.error}</Alert>}
      {services.data && engines.length === 0 ? (
        <Empty>No code execution engine is registered (start one, e.g. trestle serve --builtins).</Empty>
      ) : (
        <form class="card form console" onSubmit={start}>
          <div class="row">
            <label>
              Engine and language
              <select
                value={selected ? `${selected.engine}/${selected.language}` : ""}
                onChange={(e) => {
                  const next = (e.target as HTMLSelectElement).value;
                  setChoice(next);
                  setCode(SAMPLE[next.split("/")[1] ?? ""] ?? "");
                }}
              >
                {engines.map((e) => (
                  <option key={`${e.engine}/${e.language}`} value={`${e.engine}/${e.language}`}>
                    {e.language} on {e.engine}
                  </option>
                ))}
              </select>
            </label>
            <label>
              Timeout (s)
              <input
                type="number"
                min="1"
                value={timeoutSeconds}
                onInput={(e) => setTimeoutSeconds((e.target as HTMLInputElement).value)}
              />
            </label>
          </div>
          <label for="console-code">Code</label>
          <textarea
            id="console-code"
            class="mono code"
            rows={10}
            spellcheck={false}
            value={code}
            onInput={(e) => setCode((e.target as HTMLTextAreaElement).value)}
          />
          <div class="form-actions">
            <button type="submit" class="primary" disabled={active || !selected}>
              {active ? "Running…" : "Run"}
            </button>
            <button type="button" disabled={!active} onClick={() => running.current?.abort()}>
              Stop
            </button>
            <RunStatus run={run} />
          </div>
        </form>
      )}
      {run.error && <Alert>{run.error}</Alert>}
      {run.phase !== "idle" && (
        <pre class="output" role="log" aria-label="Output" aria-live="polite" data-phase={run.phase}>
          {run.chunks.map((chunk, i) => (
            <span key={i} class={`out-${chunk.stream}`}>
              {chunk.text}
            </span>
          ))}
        </pre>
      )}
    </section>
  );
}

function RunStatus({ run }: { run: RunState }) {
  if (run.phase === "idle") return null;
  if (run.phase === "starting") return <Badge tone="muted">starting</Badge>;
  if (run.phase === "running") return <Badge tone="warn">running</Badge>;
  if (run.phase === "failed") return <Badge tone="bad">failed</Badge>;
  const ok = run.exitCode === undefined ? run.status !== "failed" : run.exitCode === 0;
  return (
    <Badge tone={ok ? "good" : "bad"}>
      {run.status ?? "finished"}
      {run.exitCode !== undefined ? `, exit ${run.exitCode}` : ""}
    </Badge>
  );
}
