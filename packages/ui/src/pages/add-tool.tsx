import { useState } from "preact/hooks";
import type { Tool } from "../api/types";
import { useApi, useLoad } from "../components/api-context";
import { Alert, PageHeader } from "../components/bits";
import { namespaceLabel } from "../logic/format";
import { emptyToolForm, type ToolFormFields, toolFromForm } from "../logic/tool-form";

const SCHEMA_EXAMPLE = '{"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}';

/** A form that adds a tool to a namespace through the management API, with every refusal shown as it is. */
export function AddToolPage({ namespace, onAdded }: { namespace: string; onAdded(tool: Tool): void }) {
  const { client, report } = useApi();
  const namespaces = useLoad((api) => api.listNamespaces(), []);
  const services = useLoad((api) => api.listServices(), []);
  const [fields, setFields] = useState<ToolFormFields>(emptyToolForm(namespace));
  const [errors, setErrors] = useState<Partial<Record<keyof ToolFormFields, string>>>({});
  const [refusal, setRefusal] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);

  const serviceNames = [
    ...new Set(
      (services.data ?? [])
        .filter((s) => s.target.serviceType === "tool-invoker" || s.target.serviceType === "multi-capability")
        .map((s) => s.target.serviceName),
    ),
  ].sort();

  const set = (key: keyof ToolFormFields) => (event: Event) =>
    setFields({ ...fields, [key]: (event.target as HTMLInputElement).value });

  async function submit(event: Event) {
    event.preventDefault();
    setRefusal(undefined);
    const result = toolFromForm(fields);
    if (!result.ok) {
      setErrors(result.errors);
      return;
    }
    setErrors({});
    setBusy(true);
    try {
      const added = await client.addTool(result.tool);
      onAdded(added);
    } catch (failure) {
      setRefusal(report(failure));
    } finally {
      setBusy(false);
    }
  }

  const field = (key: keyof ToolFormFields, label: string, input: preact.JSX.Element, hint?: string) => (
    <div class={errors[key] ? "field invalid" : "field"}>
      <label for={`tool-${key}`}>{label}</label>
      {input}
      {hint && !errors[key] && <p class="hint">{hint}</p>}
      {errors[key] && (
        <p class="field-error" id={`tool-${key}-error`}>
          {errors[key]}
        </p>
      )}
    </div>
  );

  return (
    <section>
      <PageHeader title="Add a tool" />
      <form class="card form" onSubmit={submit} noValidate>
        {field(
          "namespace",
          "Namespace",
          <select id="tool-namespace" value={fields.namespace} onChange={set("namespace")}>
            {(namespaces.data ?? [{ name: "" }]).map((ns) => (
              <option key={ns.name} value={ns.name}>
                {namespaceLabel(ns.name)}
              </option>
            ))}
          </select>,
        )}
        {field(
          "name",
          "Name",
          <input id="tool-name" value={fields.name} onInput={set("name")} autocomplete="off" />,
          "What MCP clients call it: letters, digits, '_', '-' and '.'.",
        )}
        {field(
          "type",
          "Service",
          <>
            <input id="tool-type" list="tool-services" value={fields.type} onInput={set("type")} />
            <datalist id="tool-services">
              {serviceNames.map((name) => (
                <option key={name} value={name} />
              ))}
            </datalist>
          </>,
          "The capability service that runs it (its registered service name).",
        )}
        {field(
          "uri",
          "URI",
          <input
            id="tool-uri"
            value={fields.uri}
            onInput={set("uri")}
            placeholder="https://api.example/weather"
          />,
        )}
        {field(
          "description",
          "Description",
          <textarea id="tool-description" rows={2} value={fields.description} onInput={set("description")} />,
        )}
        {field(
          "inputSchema",
          "Input schema (JSON)",
          <textarea
            id="tool-inputSchema"
            class="mono"
            rows={4}
            value={fields.inputSchema}
            placeholder={SCHEMA_EXAMPLE}
            onInput={set("inputSchema")}
          />,
        )}
        {field(
          "labels",
          "Labels",
          <textarea
            id="tool-labels"
            class="mono"
            rows={2}
            value={fields.labels}
            placeholder="team=ops"
            onInput={set("labels")}
          />,
          "One key=value a line.",
        )}
        {refusal && (
          <Alert>
            <strong>The router refused the tool.</strong> {refusal}
          </Alert>
        )}
        <div class="form-actions">
          <button type="submit" class="primary" disabled={busy}>
            {busy ? "Adding…" : "Add tool"}
          </button>
        </div>
      </form>
    </section>
  );
}
