import { describe, expect, it } from "vitest";
import { roundOrder } from "./throughput.js";

const configurations = ["bound-mcp", "floor", "trestle-grpc", "trestle-grpc-stateless"];
const forward = configurations;
const reversed = [...configurations].reverse();

describe("roundOrder", () => {
  it("alternates each concurrency's order from one round to the next, however many concurrencies a round has", () => {
    for (const concurrencies of [1, 2, 3, 4, 5]) {
      for (let index = 0; index < concurrencies; index++) {
        const orders = [1, 2, 3, 4].map((round) => roundOrder(configurations, round, index));
        for (let r = 1; r < orders.length; r++) expect(orders[r]).not.toEqual(orders[r - 1]);
      }
    }
  });

  it("alternates from one concurrency to the next within a round, starting A B C … in round 1", () => {
    expect([0, 1, 2, 3].map((index) => roundOrder(configurations, 1, index))).toEqual([
      forward,
      reversed,
      forward,
      reversed,
    ]);
    expect(roundOrder(configurations, 2, 0)).toEqual(reversed);
  });

  it("runs every configuration once and leaves the list it was given as it was", () => {
    const given = [...configurations];
    expect([...roundOrder(given, 2, 1)].sort()).toEqual([...configurations].sort());
    expect(given).toEqual(configurations);
  });
});
