import { TaskState } from "@a2a-js/sdk";
import { createRouter, type Router, resolveConfig } from "@trestle/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callToolOverA2a, routerSkills } from "../src/a2a-client.js";
import { planTripOverMcp } from "../src/mcp-client.js";
import { startTripAgent, type TripAgent } from "../src/trip-agent.js";

describe("A2A both ways through one router", () => {
  let router: Router;
  let agent: TripAgent;

  beforeAll(async () => {
    agent = await startTripAgent();
    router = await createRouter(resolveConfig({ env: {}, flags: { port: "0", memoryStore: true } }));
    // As `trestle forwards add trip --prefix trip_ --a2a <agent URL>` does.
    const response = await fetch(`${router.url}/api/v1/forwards`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "trip", prefix: "trip_", a2a: { url: agent.url } }),
    });
    expect(response.status).toBe(201);
  }, 60_000);

  afterAll(async () => {
    await router?.close();
    await agent?.close();
  });

  it("an MCP client talks to the agent: its question, then the streamed plan in the same task", async () => {
    const trip = await planTripOverMcp(router.url, "Lisbon");
    expect(trip.question).toBe("Where to? I know Lisbon, Porto, Oslo, Kyoto.");
    expect(trip.chunks).toEqual([
      "Day 1: arrive in Lisbon.",
      " Day 2: walk the old town.",
      " Day 3: fly home.",
    ]);
    expect(trip.plan).toBe("Day 1: arrive in Lisbon. Day 2: walk the old town. Day 3: fly home.");
  });

  it("an A2A client calls the router's tools, the agent's skill among them", async () => {
    expect(await routerSkills(router.url)).toContain("trip_plan_trip");
    const reply = await callToolOverA2a(router.url, "trip_plan_trip", {
      message: "Three days in Porto, please",
    });
    expect(reply.state).toBe(String(TaskState.TASK_STATE_COMPLETED));
    expect(reply.text).toContain("Day 1: arrive in Porto.");
  });
});
