import { describe, expect, it } from "vitest";
import {
  REDACTED,
  redactArguments,
  redactHeaders,
  redactSecretsUri,
  scrubSecrets,
  stringifyArgument,
} from "./redaction.js";

describe("redactArguments", () => {
  it("removes wanaku_auth_* and wanaku_meta_* arguments", () => {
    expect(
      redactArguments({ wanaku_auth_Authorization: "Bearer x", wanaku_meta_trace: "t", city: "Oslo" }),
    ).toEqual({
      city: "Oslo",
    });
  });

  it.each([
    "password",
    "userPassword",
    "SECRET",
    "client_secret",
    "token",
    "accessToken",
    "apikey",
    "ApiKey",
    "api_key",
    "credentials",
  ])("replaces the value of '%s'", (key) => {
    expect(redactArguments({ [key]: "hunter2" })[key]).toBe(REDACTED);
  });

  it("keeps ordinary arguments, stringified, and drops null values", () => {
    expect(redactArguments({ n: 3, ok: true, obj: { a: [1] }, gone: null })).toEqual({
      n: "3",
      ok: "true",
      obj: '{"a":[1]}',
    });
  });
});

describe("redactHeaders", () => {
  it.each([
    "Authorization",
    "x-api-key",
    "Api-Key",
    "X-Auth-Token",
    "bearer",
    "Cookie",
    "Set-Cookie",
    "X-Session-Id",
  ])("replaces the value of header '%s'", (key) => {
    expect(redactHeaders({ [key]: "v" })[key]).toBe(REDACTED);
  });

  it("keeps ordinary headers", () => {
    expect(redactHeaders({ "Content-Type": "application/json" })).toEqual({
      "Content-Type": "application/json",
    });
  });
});

describe("redactSecretsUri", () => {
  it("hides a set secrets URI and keeps an empty one empty", () => {
    expect(redactSecretsUri("file:///secret/x")).toBe(REDACTED);
    expect(redactSecretsUri("")).toBe("");
    expect(redactSecretsUri(undefined)).toBe("");
  });
});

describe("scrubSecrets", () => {
  it("replaces every occurrence of each secret, longest first", () => {
    expect(scrubSecrets("key abcd1234 and abcd1234xyz", ["abcd1234", "abcd1234xyz"])).toBe(
      `key ${REDACTED} and ${REDACTED}`,
    );
  });

  it("leaves values under 4 characters alone", () => {
    expect(scrubSecrets("a b c", ["a"])).toBe("a b c");
  });
});

describe("stringifyArgument", () => {
  it("turns objects and arrays into JSON and keeps strings as they are", () => {
    expect(stringifyArgument("x")).toBe("x");
    expect(stringifyArgument([1, "a"])).toBe('[1,"a"]');
    expect(stringifyArgument(1.5)).toBe("1.5");
  });
});
