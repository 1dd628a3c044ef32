import { TrestleError } from "@trestle/core";
import { describe, expect, it } from "vitest";
import { parseRegistration } from "./service-target-schema.js";

const registration = { serviceName: "weather", host: "127.0.0.1", port: 9000, serviceType: "tool-invoker" };

describe("a registration's protocol", () => {
  it("may name a transport plugin's protocol, not only a built-in one", () => {
    expect(parseRegistration({ ...registration, protocol: "http-json" }).protocol).toBe("http-json");
  });

  it.each(["HTTP", "http json", "1http", "a".repeat(33)])(
    "refuses %j, which no configuration could name",
    (protocol) => {
      expect(() => parseRegistration({ ...registration, protocol })).toThrow(TrestleError);
    },
  );
});
