import type { CodeRun } from "@trestle/core";
import { describe, expect, it } from "vitest";
import { buildCodeExecutionRequest as buildRequest, decodeCode } from "../src/index.js";

/** The request for running `input` on `engineType`/`language`. */
function buildCodeExecutionRequest(
  engineType: string,
  language: string,
  input: Omit<CodeRun, "engineType" | "language">,
  requestId?: string,
) {
  return buildRequest({ engineType, language, ...input }, requestId);
}

const utf8Base64 = (text: string) => Buffer.from(text, "utf8").toString("base64");

describe("contract §4: the CodeExecutionRequest", () => {
  it("addresses code-execution-engine://{engineType}/{language}", () => {
    expect(buildCodeExecutionRequest("jvm", "python", { code: "" }).uri).toBe(
      "code-execution-engine://jvm/python",
    );
  });

  it("Base64-decodes the code", () => {
    const code = 'print("héllo")\nfor i in range(3):\n\tprint(i)\n';
    expect(buildCodeExecutionRequest("jvm", "python", { code: utf8Base64(code) }).code).toBe(code);
  });

  it("accepts Base64 wrapped over several lines", () => {
    const code = "x = 1\n".repeat(40);
    const wrapped = utf8Base64(code).replace(/(.{76})/g, "$1\n");
    expect(decodeCode(wrapped)).toBe(code);
  });

  it.each([
    ["not Base64 at all", 'print("hi")'],
    ["valid Base64 decoding to invalid UTF-8", "abcd"],
    ["valid Base64 decoding to control characters", Buffer.from([0x01, 0x02, 0x41]).toString("base64")],
    ["Base64 with wrong padding", `${utf8Base64("print(1)")}=`],
  ])("sends the code as raw text when it is %s", (_, code) => {
    expect(buildCodeExecutionRequest("jvm", "python", { code }).code).toBe(code);
  });

  it("turns a list of arguments into arg0, arg1, …", () => {
    expect(buildCodeExecutionRequest("e", "l", { code: "", arguments: ["a", "b", "c"] }).arguments).toEqual({
      arg0: "a",
      arg1: "b",
      arg2: "c",
    });
  });

  it("sends a map of arguments as it is", () => {
    expect(buildCodeExecutionRequest("e", "l", { code: "", arguments: { n: "3" } }).arguments).toEqual({
      n: "3",
    });
  });

  it("sends environment, timeout, body and request id as given", () => {
    const request = buildCodeExecutionRequest(
      "e",
      "l",
      { code: "", environment: { HOME: "/tmp" }, timeoutMs: 1500, body: "stdin" },
      "r-5",
    );
    expect(request.environment).toEqual({ HOME: "/tmp" });
    expect(request.timeout).toBe(1500n);
    expect(request.body).toBe("stdin");
    expect(request.requestId).toBe("r-5");
  });

  it("leaves the timeout unset when none is given", () => {
    expect(buildCodeExecutionRequest("e", "l", { code: "" }).timeout).toBeUndefined();
  });
});
