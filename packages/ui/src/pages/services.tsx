import type { CircuitState, HealthState, RegisteredService, ServiceCircuit } from "../api/types";
import { useInterval, useLoad } from "../components/api-context";
import { Alert, Badge, Empty, PageHeader } from "../components/bits";
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
            <table aria-label={`Instances of ${name}`}>
              <thead>
                <tr>
                  <th>Instance</th>
                  <th>Type</th>
                  <th>Address</th>
                  <th>Health</th>
                  <th>Circuit</th>
                  <th>In flight</th>
                  <th>Last seen</th>
                  <th>Registered by</th>
                </tr>
              </thead>
              <tbody>
                {instances.map((s) => {
                  const circuit = fleet.data?.circuits.get(s.id);
                  return (
                    <tr key={s.id}>
                      <td class="mono small" title={s.id}>
                        {s.id.slice(0, 8)}
                      </td>
                      <td>
                        {s.target.serviceType}
                        {s.target.languageName ? ` (${s.target.languageName})` : ""}
                      </td>
                      <td class="mono small">
                        {s.target.host}:{s.target.port}
                        {s.target.protocol ? ` · ${s.target.protocol}` : ""}
                      </td>
                      <td>
                        <Badge tone={HEALTH_TONE[s.health]}>{s.health}</Badge>
                        {s.healthMessage && <div class="small muted">{s.healthMessage}</div>}
                      </td>
                      <td>
                        {circuit ? (
                          <Badge tone={CIRCUIT_TONE[circuit.state]}>{circuit.state}</Badge>
                        ) : (
                          <Badge tone="muted">unknown</Badge>
                        )}
                      </td>
                      <td>{circuit?.inFlight ?? "–"}</td>
                      <td>{formatAgo(s.lastSeenAt, fleet.data?.at ?? Date.now())}</td>
                      <td>{s.registeredBy ?? ""}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        ))}
      <p class="muted small">
        Health comes from the router's prober; circuits and calls in flight are this router process's own
        (each replica judges the calls it made).
      </p>
    </section>
  );
}
