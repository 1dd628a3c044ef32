import type { ThroughputCell } from "../scenarios/throughput.js";

/** Colours of the configurations in the chart (Trestle in blues, bounds in greys, peers in warm colours). */
const COLOURS: Record<string, string> = {
  "bound-mcp": "#7f7f7f",
  "bound-grpc": "#b5b5b5",
  floor: "#d9d9d9",
  "trestle-grpc": "#1f5fb4",
  "trestle-connect": "#4fa3d9",
  supergateway: "#d62728",
  "mcp-proxy": "#ff8c1a",
};

const escapeXml = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** A round upper bound for an axis: 1, 2 or 5 times a power of ten. */
export function niceCeiling(value: number): number {
  if (!(value > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 5, 10]) if (step * power >= value) return step * power;
  return 10 * power;
}

interface Panel {
  title: string;
  x: number;
  y: number;
  width: number;
  height: number;
  value(cell: ThroughputCell): number;
  format(value: number): string;
  log: boolean;
}

/**
 * Renders throughput and p99 latency per configuration and concurrency as an SVG of two bar-chart panels
 * (throughput on a linear axis, p99 on a logarithmic one), written by hand: no chart library.
 */
export function renderChart(cells: readonly ThroughputCell[], subtitle: string): string {
  const configurations = [...new Set(cells.map((c) => c.configuration))];
  const concurrencies = [...new Set(cells.map((c) => c.concurrency))].sort((a, b) => a - b);
  const width = 1040;
  const height = 500;
  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="Helvetica, Arial, sans-serif">`,
    `<title>Throughput and p99 latency per configuration and concurrency: ${escapeXml(subtitle)}</title>`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="${width / 2}" y="26" text-anchor="middle" font-size="18" font-weight="bold">Trestle side by side with its bounds and peers (echo tool)</text>`,
    `<text x="${width / 2}" y="46" text-anchor="middle" font-size="12" fill="#555">${escapeXml(subtitle)}</text>`,
  );

  const panels: Panel[] = [
    {
      title: "Throughput (calls/s, higher is better)",
      x: 70,
      y: 80,
      width: 420,
      height: 320,
      value: (c) => c.callsPerSecond,
      format: (v) => v.toFixed(0),
      log: false,
    },
    {
      title: "p99 latency (ms, log scale, lower is better)",
      x: 590,
      y: 80,
      width: 420,
      height: 320,
      value: (c) => c.p99Ms,
      format: (v) => (v < 10 ? v.toFixed(1) : v.toFixed(0)),
      log: true,
    },
  ];

  for (const panel of panels) {
    const values = cells.map(panel.value).filter((v) => Number.isFinite(v) && v > 0);
    const max = niceCeiling(Math.max(...values, 1e-9));
    const minLog = Math.floor(Math.log10(Math.max(Math.min(...values, max), 1e-3)));
    const maxLog = Math.ceil(Math.log10(max));
    const scale = (v: number) => {
      if (!(v > 0)) return 0;
      if (!panel.log) return (v / max) * panel.height;
      const span = Math.max(maxLog - minLog, 1);
      return Math.max(0, ((Math.log10(v) - minLog) / span) * panel.height);
    };
    const bottom = panel.y + panel.height;
    out.push(
      `<text x="${panel.x + panel.width / 2}" y="${panel.y - 14}" text-anchor="middle" font-size="14" font-weight="bold">${escapeXml(panel.title)}</text>`,
    );
    const ticks = panel.log
      ? Array.from({ length: maxLog - minLog + 1 }, (_, i) => 10 ** (minLog + i))
      : [0, 0.25, 0.5, 0.75, 1].map((f) => f * max);
    for (const tick of ticks) {
      const y = bottom - scale(tick);
      out.push(
        `<line x1="${panel.x}" y1="${y}" x2="${panel.x + panel.width}" y2="${y}" stroke="#e3e3e3"/>`,
        `<text x="${panel.x - 6}" y="${y + 4}" text-anchor="end" font-size="11" fill="#444">${panel.format(tick)}</text>`,
      );
    }
    out.push(
      `<line x1="${panel.x}" y1="${panel.y}" x2="${panel.x}" y2="${bottom}" stroke="#333"/>`,
      `<line x1="${panel.x}" y1="${bottom}" x2="${panel.x + panel.width}" y2="${bottom}" stroke="#333"/>`,
    );
    const groupWidth = panel.width / concurrencies.length;
    const barWidth = Math.min(22, (groupWidth - 16) / configurations.length);
    concurrencies.forEach((concurrency, g) => {
      const groupX = panel.x + g * groupWidth + (groupWidth - barWidth * configurations.length) / 2;
      configurations.forEach((configuration, i) => {
        const cell = cells.find((c) => c.configuration === configuration && c.concurrency === concurrency);
        if (!cell) return;
        const value = panel.value(cell);
        const h = scale(value);
        const x = groupX + i * barWidth;
        out.push(
          `<rect x="${x.toFixed(1)}" y="${(bottom - h).toFixed(1)}" width="${(barWidth - 2).toFixed(1)}" height="${h.toFixed(1)}" fill="${COLOURS[configuration] ?? "#999"}"><title>${escapeXml(`${configuration} c${concurrency}: ${panel.format(value)}`)}</title></rect>`,
        );
        const labelX = x + (barWidth - 2) / 2 + 3;
        const labelY = bottom - h - 4;
        out.push(
          `<text x="${labelX.toFixed(1)}" y="${labelY.toFixed(1)}" font-size="9" fill="#222" transform="rotate(-90 ${labelX.toFixed(1)} ${labelY.toFixed(1)})">${Number.isFinite(value) ? panel.format(value) : "n/a"}</text>`,
        );
      });
      out.push(
        `<text x="${panel.x + g * groupWidth + groupWidth / 2}" y="${bottom + 18}" text-anchor="middle" font-size="12">concurrency ${concurrency}</text>`,
      );
    });
  }

  const legendY = height - 44;
  const itemWidth = width / Math.max(configurations.length, 1);
  configurations.forEach((configuration, i) => {
    const x = i * itemWidth + 24;
    out.push(
      `<rect x="${x}" y="${legendY}" width="14" height="14" fill="${COLOURS[configuration] ?? "#999"}"/>`,
      `<text x="${x + 20}" y="${legendY + 12}" font-size="12">${escapeXml(configuration)}</text>`,
    );
  });
  out.push("</svg>");
  return `${out.join("\n")}\n`;
}
