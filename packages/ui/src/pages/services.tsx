import type { CircuitState, HealthState, RegisteredService, ServiceCircuit } from "../api/types";
import { useInterval, useLoad } from "../components/api-context";
import { Alert, Badge, Empty, PageHeader } from "../components/bits";
import { type Column, DataTable } from "../components/data-table";
import { formatAgo } from "../logic/format";

const HEALTH_TONE: Record<HealthState, "good" | "warn" | "bad"> = {
  healthy: "good",
  pending: "warn",
  unhealthy: "bad",
  down: "bad",
};
const CIRCUIT_TONE: Record<CircuitState, "good" | "warn" | "bad"> = {
  closed: "good",
  "half-open": "warn",
  open: "bad",
};

interface Fleet {
  services: RegisteredService[];
  circuits: Map<string, ServiceCircuit>;
  at: number;
}

/** The instances table: id, type, address, health, circuit and calls in flight, last sign of life, registrant. */
function serviceColumns(fleet: Fleet | undefined): Column<RegisteredService>[] {
  return [
    { header: "Instance", class: "mono small", title: (s) => s.id, cell: (s) => s.id.slice(0, 8) },
    {
      header: "Type",
      cell: (s) => (
        <>
          {s.target.serviceType}
          {s.target.languageName ? ` (${s.target.languageName})` : ""}
        </>
      ),
    },
    {
      header: "Address",
      class: "mono small",
      cell: (s) => (
        <>
          {s.target.host}:{s.target.port}
          {s.target.protocol ? ` · ${s.target.protocol}` : ""}
        </>
      ),
    },
    {
      header: "Health",
      cell: (s) => (
        <>
          <Badge tone={HEALTH_TONE[s.health]}>{s.health}</Badge>
          {s.healthMessage && <div class="small muted">{s.healthMessage}</div>}
        </>
      ),
    },
    {
      header: "Circuit",
      cell: (s) => {
        const circuit = fleet?.circuits.get(s.id);
        return circuit ? (
          <Badge tone={CIRCUIT_TONE[circuit.state]}>{circuit.state}</Badge>
        ) : (
          <Badge tone="muted">unknown</Badge>
        );
      },
    },
    { header: "In flight", cell: (s) => fleet?.circuits.get(s.id)?.inFlight ?? "–" },
    { header: "Last seen", cell: (s) => formatAgo(s.lastSeenAt, fleet?.at ?? Date.now()) },
    { header: "Registered by", cell: (s) => s.registeredBy ?? "" },
  ];
}

/** The registered services, each instance with its health, its circuit on this router and its calls in flight. */
export function ServicesPage() {
  const fleet = useLoad<Fleet>(async (api) => {
    const [services, circuits] = await Promise.all([api.listServices(), api.listCircuits()]);
    return { services, circuits: new Map(circuits.map((c) => [c.id, c])), at: Date.now() };
  }, []);
  useInterval(fleet.reload, 5_000);
  const groups = new Map<string, RegisteredService[]>();
  for (const s of fleet.data?.services ?? []) {
    const list = groups.get(s.target.serviceName) ?? [];
    list.push(s);
    groups.set(s.target.serviceName, list);
  }

  return (
    <section>
      <PageHeader title="Services">
        <button type="button" onClick={fleet.reload}>
          Refresh
        </button>
      </PageHeader>
      {fleet.error && <Alert>{fleet.error}</Alert>}
      {fleet.data && groups.size === 0 && <Empty>No capability service is registered.</Empty>}
      {[...groups.entries()]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([name, instances]) => (
          <div class="card" key={name}>
            <h2>
              {name}{" "}
              <span class="count">
                {instances.length === 1 ? "1 instance" : `${instances.length} instances`}
              </span>
            </h2>
            <DataTable
              label={`Instances of ${name}`}
              columns={serviceColumns(fleet.data)}
              rows={instances}
              rowKey={(s) => s.id}
            />
          </div>
        ))}
      <p class="muted small">
        Health comes from the router's prober; circuits and calls in flight are this router process's own
        (each replica judges the calls it made).
      </p>
    </section>
  );
}
