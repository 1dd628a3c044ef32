import { type StreamResponse, TaskState } from "@a2a-js/sdk";
import { type Client, ClientFactory, JsonRpcTransportFactory } from "@a2a-js/sdk/client";
import { type PostgresCluster, startPostgresCluster } from "@trestle/test-support/postgres";
import { sendMessageParams, toolCallPart } from "@trestle/transport-a2a/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  api,
  type RouterProcess,
  serviceHealthy,
  startFixtureCapability,
  startRouter,
  stopAll,
} from "../support/processes.js";

function client(url: string): Promise<Client> {
  return new ClientFactory({ transports: [new JsonRpcTransportFactory()] }).createFromUrl(
    `${url}/a2a/.well-known/agent-card.json`,
    "",
  );
}

describe("the router's A2A tasks on two replicas sharing PostgreSQL", () => {
  let cluster: PostgresCluster;
  let a: RouterProcess;
  let b: RouterProcess;

  beforeAll(async () => {
    cluster = await startPostgresCluster();
    [a, b] = await Promise.all([
      startRouter(["--database-url", cluster.url]),
      startRouter(["--database-url", cluster.url]),
    ]);
    await startFixtureCapability(a.url, ["--service-name", "fixture-grpc", "--service-type", "tool-invoker"]);
    await api(a.url, "POST", "/api/v1/tools", {
      name: "sleeper",
      uri: "fixture://sleep?ms=60000",
      type: "fixture-grpc",
      inputSchema: { type: "object", properties: {} },
    });
    await serviceHealthy(a.url, "fixture-grpc");
  }, 180_000);

  afterAll(async () => {
    await stopAll();
    await cluster?.destroy();
  });

  it("a task started on one replica is read, followed and cancelled on the other", async () => {
    const onA = await client(a.url);
    const onB = await client(b.url);
    const stream = onA.sendMessageStream(sendMessageParams([toolCallPart("sleeper", {})]));
    const seen: StreamResponse[] = [];
    let taskId = "";
    for await (const event of stream) {
      seen.push(event);
      const payload = event.payload;
      if (
        payload?.$case === "statusUpdate" &&
        payload.value.status?.state === TaskState.TASK_STATE_WORKING &&
        !taskId
      ) {
        taskId = payload.value.taskId;
        // The other replica knows the task from the store, and follows it.
        expect((await onB.getTask({ tenant: "", id: taskId, historyLength: undefined })).status?.state).toBe(
          TaskState.TASK_STATE_WORKING,
        );
        const followed = onB.resubscribeTask({ tenant: "", id: taskId });
        const first = await followed.next();
        expect(first.value?.payload?.$case).toBe("task");
        await followed.return(undefined);
        const cancelled = await onB.cancelTask({ tenant: "", id: taskId, metadata: undefined });
        expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
      }
    }
    expect(taskId).not.toBe("");
    // The replica running the call saw the cancellation and ended its stream with it.
    const last = seen.at(-1)?.payload;
    expect(last?.$case === "statusUpdate" && last.value.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect((await onA.getTask({ tenant: "", id: taskId, historyLength: undefined })).status?.state).toBe(
      TaskState.TASK_STATE_CANCELED,
    );
  });
});
