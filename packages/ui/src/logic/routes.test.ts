import { describe, expect, it } from "vitest";
import { PAGES, pageForPath, pathForPage } from "./routes";

describe("the UI's pages under its base path", () => {
  it("maps each page to a path under the base and back", () => {
    for (const { page } of PAGES) expect(pageForPath(pathForPage(page, "/ui/"), "/ui/")).toBe(page);
    expect(pathForPage("calls", "/ui/")).toBe("/ui/calls");
    expect(pathForPage("catalog", "/ui")).toBe("/ui/");
  });

  it("shows the catalog for the base itself, an unknown path, or a path outside the base", () => {
    expect(pageForPath("/ui/", "/ui/")).toBe("catalog");
    expect(pageForPath("/ui/no-such-page", "/ui/")).toBe("catalog");
    expect(pageForPath("/elsewhere/calls", "/ui/")).toBe("catalog");
    expect(pageForPath("/ui/forwards/", "/ui/")).toBe("forwards");
  });

  it("names no page after a namespace's MCP or A2A endpoint, which the router serves under /ui/ too", () => {
    for (const { path } of PAGES) expect(path.split("/")[0]).not.toMatch(/^(mcp|a2a)$/);
  });
});
