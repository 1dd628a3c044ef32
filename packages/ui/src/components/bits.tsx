import type { ComponentChildren } from "preact";

/** A coloured word for a state: `good` (green), `warn` (amber), `bad` (red) or `muted`. */
export function Badge({
  tone,
  children,
}: {
  tone: "good" | "warn" | "bad" | "muted";
  children: ComponentChildren;
}) {
  return <span class={`badge badge-${tone}`}>{children}</span>;
}

/** An error shown to the operator, read out by screen readers as it appears. */
export function Alert({ children }: { children: ComponentChildren }) {
  return (
    <div class="alert" role="alert">
      {children}
    </div>
  );
}

/** A page's heading, with its actions on the right. */
export function PageHeader({ title, children }: { title: string; children?: ComponentChildren }) {
  return (
    <header class="page-header">
      <h1>{title}</h1>
      <div class="actions">{children}</div>
    </header>
  );
}

/** Placeholder text for an empty list. */
export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="empty">{children}</p>;
}
