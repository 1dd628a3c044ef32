import { useCallback, useEffect, useMemo, useState } from "preact/hooks";
import { ApiError, createApiClient } from "./api/api-client";
import type { Tool } from "./api/types";
import { ApiSessionContext, messageOf } from "./components/api-context";
import { namespaceLabel } from "./logic/format";
import { PAGES, type Page, pageForPath, pathForPage } from "./logic/routes";
import type { TokenStore } from "./logic/token-store";
import { AddToolPage } from "./pages/add-tool";
import { CallsPage } from "./pages/calls";
import { CatalogPage } from "./pages/catalog";
import { ConsolePage } from "./pages/console";
import { ForwardsPage } from "./pages/forwards";
import { ServicesPage } from "./pages/services";
import { SignIn } from "./pages/sign-in";

/** The admin UI: sign-in, then the pages, each a view of the management API. */
export function App({ tokens, base }: { tokens: TokenStore; base: string }) {
  const [token, setToken] = useState<string | undefined>(() => tokens.read());
  const [notice, setNotice] = useState<string | undefined>(undefined);
  const [page, setPage] = useState<Page>(() => pageForPath(location.pathname, base));
  const [flash, setFlash] = useState<string | undefined>(undefined);
  const [addToNamespace, setAddToNamespace] = useState("");

  useEffect(() => {
    const onPop = () => setPage(pageForPath(location.pathname, base));
    addEventListener("popstate", onPop);
    return () => removeEventListener("popstate", onPop);
  }, [base]);

  const go = useCallback(
    (next: Page) => {
      if (next !== page) history.pushState(null, "", pathForPage(next, base));
      setFlash(undefined);
      setPage(next);
    },
    [page, base],
  );

  const signOut = useCallback(
    (why?: string) => {
      tokens.clear();
      setToken(undefined);
      setNotice(why);
    },
    [tokens],
  );

  const session = useMemo(() => {
    if (!token) return undefined;
    return {
      client: createApiClient({ token }),
      report(error: unknown): string {
        if (error instanceof ApiError && error.unauthorized) {
          signOut(`Signed out: ${error.message}`);
        }
        return messageOf(error);
      },
    };
  }, [token, signOut]);

  if (!session) {
    return (
      <SignIn
        notice={notice}
        onSignedIn={(t) => {
          tokens.write(t);
          setNotice(undefined);
          setToken(t);
        }}
      />
    );
  }

  return (
    <ApiSessionContext.Provider value={session}>
      <div class="shell">
        <aside class="sidebar">
          <div class="brand">Trestle</div>
          <nav aria-label="Pages">
            <ul>
              {PAGES.map((p) => (
                <li key={p.page}>
                  <a
                    href={pathForPage(p.page, base)}
                    aria-current={p.page === page ? "page" : undefined}
                    onClick={(e) => {
                      if (e.ctrlKey || e.metaKey || e.shiftKey || e.button !== 0) return;
                      e.preventDefault();
                      if (p.page === "add-tool") setAddToNamespace("");
                      go(p.page);
                    }}
                  >
                    {p.title}
                  </a>
                </li>
              ))}
            </ul>
          </nav>
          <button type="button" class="sign-out" onClick={() => signOut("Signed out.")}>
            Sign out
          </button>
        </aside>
        <main class="content">
          {flash && (
            <p class="flash" role="status">
              {flash}
            </p>
          )}
          {page === "catalog" && (
            <CatalogPage
              onAddTool={(namespace) => {
                setAddToNamespace(namespace);
                go("add-tool");
              }}
            />
          )}
          {page === "add-tool" && (
            <AddToolPage
              namespace={addToNamespace}
              onAdded={(tool: Tool) => {
                go("catalog");
                setFlash(`Added the tool '${tool.name}' to ${namespaceLabel(tool.namespace)}.`);
              }}
            />
          )}
          {page === "services" && <ServicesPage />}
          {page === "forwards" && <ForwardsPage />}
          {page === "calls" && <CallsPage />}
          {page === "console" && <ConsolePage />}
        </main>
      </div>
    </ApiSessionContext.Provider>
  );
}
