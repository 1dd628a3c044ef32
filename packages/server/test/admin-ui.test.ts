import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_UI_HEADERS, createAdminUi, isAdminUiPath } from "../src/http/admin-ui.js";
import { createHttpApp } from "../src/http/http-app.js";
import { createJsonApi } from "../src/http/json-api.js";
import { createOriginGuard, createTokenAuthenticator } from "../src/http/security.js";

const SECRET = "TOP-SECRET-OUTSIDE-THE-BUILD";
const TOKEN = "admin-token-0123456789abcdef0123";
const INDEX =
  '<!doctype html><html><head><script type="module" src="/ui/assets/app-1a2b.js"></script></head></html>';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One request with the target sent exactly as written (fetch would resolve `..` before sending). */
function raw(
  port: number,
  target: string,
  options: { method?: string; headers?: Record<string, string> } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        path: target,
        method: options.method ?? "GET",
        headers: options.headers ?? {},
      },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk) => {
          body += chunk;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

describe("the admin UI's static files at /ui", () => {
  const dir = mkdtempSync(join(tmpdir(), "trestle-admin-ui-"));
  const root = join(dir, "ui");
  let server: Server;
  let port: number;
  const mcpCalls: string[] = [];

  beforeAll(async () => {
    // The build, and beside it what must never be served: a file next to it, a directory whose name starts
    // with the build's, a dot file inside it and a symbolic link inside it that points out.
    mkdirSync(join(root, "assets"), { recursive: true });
    writeFileSync(join(root, "index.html"), INDEX);
    writeFileSync(join(root, "assets", "app-1a2b.js"), "console.log('ui');\n");
    writeFileSync(join(root, "assets", "app-1a2b.css"), "body{margin:0}\n");
    writeFileSync(join(root, "favicon.svg"), "<svg xmlns='http://www.w3.org/2000/svg'/>");
    writeFileSync(join(dir, "secret.txt"), SECRET);
    mkdirSync(join(dir, "ui-private"));
    writeFileSync(join(dir, "ui-private", "secret.txt"), SECRET);
    writeFileSync(join(root, ".env"), SECRET);
    symlinkSync(join(dir, "secret.txt"), join(root, "assets", "link.txt"));
    symlinkSync(join(dir, "ui-private"), join(root, "linked-dir"));

    const app = createHttpApp({
      guard: createOriginGuard({ allowedHosts: [], allowedOrigins: [] }),
      auth: createTokenAuthenticator([{ name: "ops", token: TOKEN, scopes: ["admin"] }]),
      api: createJsonApi({ maxBodyBytes: 65_536 }),
      adminUi: createAdminUi({ root }),
      mcp: async (_req, res, namespace) => {
        mcpCalls.push(namespace);
        res.writeHead(200, { "content-type": "application/json" });
        res.end("{}");
      },
      hasNamespace: (name) => name === "ui",
      ready: () => true,
      onError: () => undefined,
    });
    server = createServer((req, res) => void app(req, res));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  it("serves the page without a token, with a strict Content-Security-Policy and nosniff", async () => {
    const answer = await raw(port, "/ui/");
    expect(answer.status).toBe(200);
    expect(answer.body).toBe(INDEX);
    expect(answer.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(answer.headers["cache-control"]).toBe("no-cache");
    const csp = String(answer.headers["content-security-policy"]);
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain("unsafe-inline");
    expect(csp).not.toContain("unsafe-eval");
    expect(answer.headers["x-content-type-options"]).toBe("nosniff");
    expect(answer.headers["x-frame-options"]).toBe("DENY");
  });

  it("answers each file with its content type; hashed assets are cached for good, the rest revalidated", async () => {
    const js = await raw(port, "/ui/assets/app-1a2b.js");
    expect(js).toMatchObject({ status: 200, body: "console.log('ui');\n" });
    expect(js.headers["content-type"]).toBe("text/javascript; charset=utf-8");
    expect(js.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    const css = await raw(port, "/ui/assets/app-1a2b.css");
    expect(css.headers["content-type"]).toBe("text/css; charset=utf-8");
    const svg = await raw(port, "/ui/favicon.svg");
    expect(svg.headers["content-type"]).toBe("image/svg+xml");
    expect(svg.headers["cache-control"]).toBe("no-cache");
    for (const [name, value] of Object.entries(ADMIN_UI_HEADERS)) expect(js.headers[name]).toBe(value);
  });

  it("sends /ui to /ui/ and the app's pages to index.html; a missing file with an extension is a 404", async () => {
    const bare = await raw(port, "/ui");
    expect(bare.status).toBe(308);
    expect(bare.headers.location).toBe("/ui/");
    for (const page of ["/ui/calls", "/ui/tools/new", "/ui/console?x=1"]) {
      const answer = await raw(port, page);
      expect(answer.status, page).toBe(200);
      expect(answer.body, page).toBe(INDEX);
    }
    const missing = await raw(port, "/ui/assets/gone-9f9f.js");
    expect(missing.status).toBe(404);
    expect(missing.headers["content-type"]).toBe("text/plain; charset=utf-8");
    expect(missing.headers["x-content-type-options"]).toBe("nosniff");
    expect(missing.headers["content-security-policy"]).toBe(ADMIN_UI_HEADERS["content-security-policy"]);
  });

  it("never serves a file outside the build, whatever the path says", async () => {
    const attempts = [
      "/ui/../secret.txt",
      "/ui/assets/../../secret.txt",
      "/ui/%2e%2e/secret.txt",
      "/ui/%2E%2E/secret.txt",
      "/ui/..%2fsecret.txt",
      "/ui/%2e%2e%2fsecret.txt",
      "/ui/assets/%2e%2e%2f%2e%2e%2fsecret.txt",
      "/ui/%252e%252e/secret.txt",
      "/ui/..%5csecret.txt",
      "/ui/..\\secret.txt",
      "/ui/%c0%ae%c0%ae/secret.txt",
      "/ui/%00/../secret.txt",
      "/ui/../ui-private/secret.txt",
      "/ui-private/secret.txt",
      "/ui/.env",
      "/ui/assets/link.txt",
      "/ui/linked-dir/secret.txt",
      `/ui/${join(dir, "secret.txt")}`,
      `/ui//${join(dir, "secret.txt")}`,
    ];
    for (const target of attempts) {
      const answer = await raw(port, target);
      expect(answer.body, target).not.toContain(SECRET);
      expect([400, 404], `${target} answered ${answer.status}`).toContain(answer.status);
    }
  });

  it("answers HEAD without a body and refuses other methods", async () => {
    const head = await raw(port, "/ui/assets/app-1a2b.js", { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.body).toBe("");
    expect(head.headers["content-length"]).toBe(String("console.log('ui');\n".length));
    const post = await raw(port, "/ui/", { method: "POST" });
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe("GET, HEAD");
  });

  it("keeps the Host check: a page for a host the router does not answer to is refused", async () => {
    const answer = await raw(port, "/ui/", { headers: { host: "rebound.example" } });
    expect(answer.status).toBe(403);
    expect(answer.body).not.toContain("<!doctype html>");
  });

  it("leaves a namespace named `ui` its MCP endpoint, behind its token", async () => {
    expect(isAdminUiPath("/ui/mcp")).toBe(false);
    expect(isAdminUiPath("/ui/a2a/.well-known/agent-card.json")).toBe(false);
    expect(isAdminUiPath("/ui/mcp-tools")).toBe(true);
    expect(isAdminUiPath("/uix")).toBe(false);
    const refused = await raw(port, "/ui/mcp", { method: "POST" });
    expect(refused.status).toBe(401);
    const served = await raw(port, "/ui/mcp", {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(served.status).toBe(200);
    expect(mcpCalls).toEqual(["ui"]);
  });

  it("says so when the router was built without the UI", async () => {
    const empty = mkdtempSync(join(tmpdir(), "trestle-no-ui-"));
    const ui = createAdminUi({ root: join(empty, "missing") });
    const app = createHttpApp({
      guard: createOriginGuard({ allowedHosts: [], allowedOrigins: [] }),
      auth: createTokenAuthenticator([]),
      api: createJsonApi({ maxBodyBytes: 65_536 }),
      adminUi: ui,
      mcp: async () => undefined,
      hasNamespace: () => false,
      ready: () => true,
      onError: () => undefined,
    });
    const bare = createServer((req, res) => void app(req, res));
    await new Promise<void>((resolve) => bare.listen(0, "127.0.0.1", resolve));
    try {
      const answer = await raw((bare.address() as AddressInfo).port, "/ui/");
      expect(answer.status).toBe(404);
      expect(answer.body).toMatch(/admin UI is not part of this build/);
    } finally {
      await new Promise((resolve) => bare.close(resolve));
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
