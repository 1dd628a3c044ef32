import { describe, expect, it } from "vitest";
import type { Prompt, Resource, Tool } from "../api/types";
import { searchCatalog } from "./catalog-search";

const tools: Tool[] = [
  { name: "forecast", type: "http", uri: "https://api.example/weather", description: "Weather for a city" },
  { name: "weather_now", type: "http", uri: "https://api.example/now", labels: { team: "ops" } },
  { name: "echo", type: "fixture", uri: "fixture://echo", description: "Echoes its arguments" },
];

describe("searching the catalog", () => {
  it("finds every word anywhere in an entry, case-insensitively, names that hold the first word first", () => {
    expect(searchCatalog(tools, "WEATHER").map((t) => t.name)).toEqual(["weather_now", "forecast"]);
    expect(searchCatalog(tools, "weather city").map((t) => t.name)).toEqual(["forecast"]);
    expect(searchCatalog(tools, "team=ops").map((t) => t.name)).toEqual(["weather_now"]);
    expect(searchCatalog(tools, "fixture://").map((t) => t.name)).toEqual(["echo"]);
    expect(searchCatalog(tools, "nothing-like-this")).toEqual([]);
  });

  it("matches everything for an empty query, in the original order", () => {
    expect(searchCatalog(tools, "  ").map((t) => t.name)).toEqual(["forecast", "weather_now", "echo"]);
  });

  it("searches resources by location and MIME type, prompts by argument names", () => {
    const resources: Resource[] = [
      { name: "notes", type: "file", location: "file:///srv/notes.txt", mimeType: "text/plain" },
      { name: "logo", type: "file", location: "file:///srv/logo.png", mimeType: "image/png" },
    ];
    const prompts: Prompt[] = [{ name: "summarize", arguments: [{ name: "document" }] }];
    expect(searchCatalog(resources, "image/png").map((r) => r.name)).toEqual(["logo"]);
    expect(searchCatalog(resources, "notes.txt").map((r) => r.name)).toEqual(["notes"]);
    expect(searchCatalog(prompts, "document").map((p) => p.name)).toEqual(["summarize"]);
  });
});
