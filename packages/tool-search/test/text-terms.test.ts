import { describe, expect, it } from "vitest";
import { expandQuery, prepareThesaurus } from "../src/query-expansion.js";
import { splitWords, termsOf } from "../src/text-terms.js";

describe("splitWords and termsOf", () => {
  it("splits snake_case, kebab-case, dotted and camelCase names, keeping a cased compound whole too", () => {
    expect(splitWords("github_create_issue")).toEqual(["github", "create", "issue"]);
    expect(splitWords("weather-get-forecast")).toEqual(["weather", "get", "forecast"]);
    expect(splitWords("stripe.refunds.create")).toEqual(["stripe", "refunds", "create"]);
    expect(splitWords("getHTTPResponse")).toEqual(["get", "HTTP", "Response", "getHTTPResponse"]);
    expect(splitWords("MongoDB")).toEqual(["Mongo", "DB", "MongoDB"]);
  });

  it("drops stop words and stems", () => {
    expect(termsOf("Please list all the open issues")).toEqual(["list", "all", "open", "issu"]);
    expect(termsOf("turn off the lights")).toEqual(["turn", "off", "light"]);
  });
});

describe("expandQuery", () => {
  const thesaurus = prepareThesaurus([
    ["schedule", "set up", "book"],
    ["update", "set", "change"],
    ["track", "where is"],
  ]);

  it("weighs the query's own terms 1 and the thesaurus' additions less", () => {
    const weights = expandQuery("book a room", thesaurus, 0.4, 48);
    expect(weights.get("book")).toBe(1);
    expect(weights.get("room")).toBe(1);
    expect(weights.get("schedul")).toBe(0.4);
    expect(weights.has("chang")).toBe(false);
  });

  it("matches the longest phrase, whose words then match nothing shorter", () => {
    const weights = expandQuery("set up a call", thesaurus, 0.4, 48);
    expect(weights.get("schedul")).toBe(0.4);
    expect(weights.has("updat")).toBe(false);
    expect(expandQuery("set the topic", thesaurus, 0.4, 48).get("updat")).toBe(0.4);
  });

  it("matches phrases made of stop words, and keeps at most maxTerms terms, its own first", () => {
    expect(expandQuery("where is my parcel", thesaurus, 0.4, 48).get("track")).toBe(0.4);
    const capped = expandQuery("book room desk lamp chair", thesaurus, 0.4, 3);
    expect([...capped.keys()]).toEqual(["book", "room", "desk"]);
  });
});
