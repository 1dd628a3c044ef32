import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { wireMessageParams, wireTaskOf, wireToolCallParams } from "@trestle/transport-a2a/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { modernRequest } from "../support/mcp-wire.js";
import { api, eventually, type RouterProcess, repoRoot, startRouter, stopAll } from "../support/processes.js";

/**
 * Red team, the principal on every stored object: each test is an attack by one `mcp` principal (mallory) on what
 * another (alice) left behind — her A2A tasks, her MCP tasks, the sealed state and the held call of her
 * multi-round tool call. Before the principal was carried through the fronts, every one of them worked: the A2A
 * front kept tasks per namespace only, and the MCP dispatcher dropped the principal, so everything was bound to
 * "anonymous".
 */

const MODERN_FIXTURE = join(repoRoot, "packages", "e2e", "fixtures", "modern-mcp-server.mjs");
const ADMIN = "red-principals-admin-0123456789";
const ALICE = "red-principals-alice-0123456789";
const MALLORY = "red-principals-mallory-01234567";
/** What alice's arguments carry: a password by name and one inside a URL. */
const PASSWORD_CANARY = "canary-password-5f1e";
const URL_CANARY = "canary-url-secret-77ab";
const TASKS = { extensions: { "io.modelcontextprotocol/tasks": {} } };

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

interface RpcAnswer {
  status: number;
  body: { result?: Record<string, unknown>; error?: { code: number; message: string } };
}

/** One A2A v1.0 JSON-RPC request to the default namespace's agent. */
async function a2a(
  router: RouterProcess,
  token: string,
  method: string,
  params: Record<string, unknown>,
): Promise<RpcAnswer> {
  const response = await fetch(`${router.url}/a2a`, {
    method: "POST",
    headers: { "content-type": "application/json", "a2a-version": "1.0", ...bearer(token) },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const text = await response.text();
  return { status: response.status, body: JSON.parse(text) as RpcAnswer["body"] };
}

/** Every file under `dir`, read as text (the store's files, whatever PGlite names them). */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...filesUnder(path));
    else out.push(readFileSync(path, "latin1"));
  }
  return out;
}

describe("red team: one principal cannot reach another's A2A tasks, MCP tasks, request states or held calls", () => {
  let router: RouterProcess;
  let dataDir: string;
  const mcp = () => `${router.url}/mcp`;
  const modernAs = (
    token: string,
    method: string,
    params: Record<string, unknown>,
    capabilities: Record<string, unknown> = {},
  ) => modernRequest(mcp(), method, params, { capabilities, headers: bearer(token) });

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "trestle-red-principals-"));
    router = await startRouter(["--data-dir", dataDir], {
      TRESTLE_TOKENS: JSON.stringify([
        { name: "ops", token: ADMIN, scopes: ["admin"] },
        { name: "alice", token: ALICE, scopes: ["mcp"] },
        { name: "mallory", token: MALLORY, scopes: ["mcp"] },
      ]),
    });
    const admin = bearer(ADMIN);
    await api(
      router.url,
      "POST",
      "/api/v1/forwards",
      {
        name: "modern",
        // The fixture loads the MCP SDK from the repository: its directory is visible (read-only) in the sandbox.
        upstream: { kind: "stdio", command: process.execPath, args: [MODERN_FIXTURE], cwd: repoRoot },
      },
      admin,
    );
    // A legacy-only upstream spawned per call: its questions come while the call runs, so the router holds it.
    await api(
      router.url,
      "POST",
      "/api/v1/forwards",
      {
        name: "legacy",
        prefix: "legacy_",
        upstream: {
          kind: "stdio",
          command: process.execPath,
          args: [MODERN_FIXTURE, "--legacy-only"],
          mode: "per-call",
          cwd: repoRoot,
        },
      },
      admin,
    );
    await eventually(
      async () => {
        const tools = await api<{ name: string }[]>(router.url, "GET", "/api/v1/tools", undefined, admin);
        return tools.some((t) => t.name === "slow_compute") &&
          tools.some((t) => t.name === "legacy_test_sampling_request")
          ? true
          : undefined;
      },
      60_000,
      "the forwards' tools imported",
    );
  }, 120_000);

  afterAll(async () => {
    await stopAll();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("A2A: another principal cannot list, read, cancel or subscribe to a task, and learns nothing from trying", async () => {
    const sent = await a2a(
      router,
      ALICE,
      "SendMessage",
      wireToolCallParams("slow_compute", {
        seconds: 3,
        environment: { DATABASE_URL: `postgres://app:${URL_CANARY}@db/shop`, db_password: PASSWORD_CANARY },
      }),
    );
    const task = wireTaskOf(sent.body);
    const unknown = crypto.randomUUID();

    const listed = await a2a(router, MALLORY, "ListTasks", { pageSize: 100 });
    expect(JSON.stringify(listed.body)).not.toContain(task.id);
    for (const method of ["GetTask", "CancelTask", "SubscribeToTask"]) {
      const theirs = await a2a(router, MALLORY, method, { id: task.id });
      const none = await a2a(router, MALLORY, method, { id: unknown });
      // Exactly as a task that does not exist: same status, same code, same message but for the id.
      expect(theirs.status, method).toBe(200);
      expect(theirs.body.error?.code, method).toBe(-32001);
      expect(theirs.body.error?.message.replace(task.id, "ID"), method).toBe(
        none.body.error?.message.replace(unknown, "ID"),
      );
    }
    // Alice's task ran on, uncancelled; her own view of it holds her arguments without their secrets.
    const own = await eventually(
      async () => {
        const got = await a2a(router, ALICE, "GetTask", { id: task.id });
        const state = (got.body.result as { status?: { state?: string } } | undefined)?.status?.state;
        return state === "TASK_STATE_COMPLETED" ? got : undefined;
      },
      20_000,
      "alice's task completed",
    );
    const text = JSON.stringify(own.body);
    expect(text).toContain("postgres://app:");
    expect(text).not.toContain(URL_CANARY);
    expect(text).not.toContain(PASSWORD_CANARY);
    // Nor does the store hold them, in any file of its data directory.
    for (const file of filesUnder(dataDir)) {
      expect(file.includes(PASSWORD_CANARY)).toBe(false);
      expect(file.includes(URL_CANARY)).toBe(false);
    }
  });

  it("A2A: another principal cannot continue a task that waits for input; its owner can", async () => {
    const asked = wireTaskOf(
      (
        await a2a(
          router,
          ALICE,
          "SendMessage",
          wireToolCallParams("test_input_required_result_elicitation", {}),
        )
      ).body,
    );
    expect(asked.status.state).toBe("TASK_STATE_INPUT_REQUIRED");
    const stolen = await a2a(
      router,
      MALLORY,
      "SendMessage",
      wireMessageParams([{ data: { name: "Mallory" } }], asked.id),
    );
    expect(stolen.body.error?.code).toBe(-32001);
    const answered = await a2a(
      router,
      ALICE,
      "SendMessage",
      wireMessageParams([{ data: { name: "Ada" } }], asked.id),
    );
    const done = wireTaskOf(answered.body);
    expect(done.status.state).toBe("TASK_STATE_COMPLETED");
    expect(JSON.stringify(answered.body)).toContain("Hello, Ada!");
  });

  it("MCP tasks: another principal's tasks/get, tasks/update and tasks/cancel answer as for no task", async () => {
    const created = await modernAs(
      ALICE,
      "tools/call",
      { name: "slow_compute", arguments: { seconds: 2 } },
      TASKS,
    );
    expect(created.body.result?.resultType).toBe("task");
    const taskId = created.body.result?.taskId as string;
    for (const method of ["tasks/get", "tasks/update", "tasks/cancel"]) {
      const extra = method === "tasks/update" ? { inputResponses: {} } : {};
      const theirs = await modernAs(MALLORY, method, { taskId, ...extra }, TASKS);
      expect(theirs.body.error?.code, method).toBe(-32602);
      expect(theirs.body.error?.message, method).toBe(`Invalid params: no task ${taskId}`);
    }
    const done = await eventually(
      async () => {
        const got = await modernAs(ALICE, "tasks/get", { taskId }, TASKS);
        return got.body.result?.status === "completed" ? got.body.result : undefined;
      },
      20_000,
      "alice's task completed, not cancelled",
    );
    expect(JSON.stringify(done)).toContain("computed after 2 s");
  });

  it("MCP input_required: a request state and its held call answer only their own request, once", async () => {
    const question = { question: "Capital of France?" };
    const first = await modernAs(
      ALICE,
      "tools/call",
      { name: "legacy_test_sampling_request", arguments: question },
      { sampling: {} },
    );
    expect(first.body.result?.resultType).toBe("input_required");
    const requestState = first.body.result?.requestState as string;
    const [key] = Object.keys(first.body.result?.inputRequests as Record<string, unknown>);
    const answer = (text: string) => ({
      [key as string]: {
        role: "assistant",
        content: { type: "text", text },
        model: "m",
        stopReason: "endTurn",
      },
    });

    // Mallory replays alice's state with answers of her own, to receive the held call's result.
    const stolen = await modernAs(
      MALLORY,
      "tools/call",
      {
        name: "legacy_test_sampling_request",
        arguments: question,
        inputResponses: answer("Lyon"),
        requestState,
      },
      { sampling: {} },
    );
    expect(stolen.body.error?.code).toBe(-32602);
    expect(JSON.stringify(stolen.body)).not.toContain("Lyon");
    // The state names its arguments too: the same tool with others is another request.
    const other = await modernAs(
      ALICE,
      "tools/call",
      {
        name: "legacy_test_sampling_request",
        arguments: { question: "Capital of Italy?" },
        inputResponses: answer("Rome"),
        requestState,
      },
      { sampling: {} },
    );
    expect(other.body.error?.code).toBe(-32602);

    const answered = await modernAs(
      ALICE,
      "tools/call",
      {
        name: "legacy_test_sampling_request",
        arguments: question,
        inputResponses: answer("Paris"),
        requestState,
      },
      { sampling: {} },
    );
    expect(JSON.stringify(answered.body.result?.content)).toContain("Paris");
    // Spent: the same state again finds nothing held.
    const again = await modernAs(
      ALICE,
      "tools/call",
      {
        name: "legacy_test_sampling_request",
        arguments: question,
        inputResponses: answer("Paris"),
        requestState,
      },
      { sampling: {} },
    );
    expect(again.body.error?.code).toBe(-32602);
  });
});
