/** The pages of the admin UI. */
export type Page = "catalog" | "add-tool" | "services" | "forwards" | "calls" | "console";

/** Each page's path under the UI's base, and its title in the navigation. */
export const PAGES: readonly { page: Page; path: string; title: string }[] = [
  { page: "catalog", path: "", title: "Catalog" },
  { page: "add-tool", path: "tools/new", title: "Add a tool" },
  { page: "services", path: "services", title: "Services" },
  { page: "forwards", path: "forwards", title: "Forwards" },
  { page: "calls", path: "calls", title: "Calls" },
  { page: "console", path: "console", title: "Code console" },
];

/** `base` with exactly one trailing slash (`/ui/`). */
function withSlash(base: string): string {
  return base.endsWith("/") ? base : `${base}/`;
}

/**
 * The page a location's path shows, under `base` (`/ui/`): an unknown path shows the catalog, so an old
 * bookmark still opens the UI.
 */
export function pageForPath(pathname: string, base: string): Page {
  const root = withSlash(base);
  const rest = pathname.startsWith(root) ? pathname.slice(root.length) : "";
  const path = rest.replace(/\/+$/, "");
  return PAGES.find((p) => p.path === path)?.page ?? "catalog";
}

/** The path of `page` under `base`. */
export function pathForPage(page: Page, base: string): string {
  const entry = PAGES.find((p) => p.page === page);
  return `${withSlash(base)}${entry?.path ?? ""}`;
}
