import type { CategorySpec } from "../catalog-spec.js";

/** DNS, CDN, certificates. */
export const NETWORK_EDGE: CategorySpec = {
  category: "network edge",
  entities: [
    {
      noun: "dns record",
      gloss: "A {noun} maps a host name in a zone to an address or another name (A, AAAA, CNAME, MX, TXT).",
      parent: { noun: "zone", fields: [["zone_id", "string", "ID of the DNS zone"]] },
      id: ["record_id", "string", "ID of the record"],
      fields: [
        ["type!?", "enum:A|AAAA|CNAME|MX|TXT|NS", "Record type"],
        ["name!?", "string", "Host name"],
        ["content!", "string", "Address or target"],
        ["ttl", "integer", "Time to live in seconds"],
      ],
      verbs: ["list", "get", "create", "update", "delete"],
    },
    {
      noun: "zone",
      gloss: "A DNS {noun} is a domain whose records {product} serves.",
      id: ["zone_id", "string", "ID of the zone"],
      fields: [["domain!", "string", "Domain name, e.g. example.com"]],
      verbs: ["list", "get", "create"],
    },
    {
      noun: "certificate",
      gloss: "A TLS {noun} lets a domain serve HTTPS.",
      fields: [
        ["domains!", "string[]", "Domain names it covers"],
        ["expires_before?", "date", "Only certificates expiring before this date"],
      ],
      verbs: ["list", "get", "create", "delete"],
    },
    {
      noun: "cache",
      gloss: "The CDN {noun} keeps copies of content at edge locations.",
      fields: [],
      verbs: [],
      custom: [
        {
          verb: "purge",
          name: "purge cache",
          onItem: false,
          description: "Purges cached content from {product}'s CDN so the next request fetches it fresh.",
          args: [
            ["urls", "uri[]", "URLs to purge; everything when absent"],
            ["zone_id!", "string", "Zone to purge"],
          ],
        },
      ],
    },
    {
      noun: "waf rule",
      gloss:
        "A web application firewall {noun} blocks or challenges requests that match an expression (IP, country, path).",
      parent: { noun: "zone", fields: [["zone_id", "string", "ID of the DNS zone"]] },
      id: ["rule_id", "string", "ID of the rule"],
      fields: [
        ["expression!", "string", "Match expression"],
        ["action!", "enum:block|challenge|allow|log", "What to do"],
        ["description", "string", "Why"],
      ],
      verbs: ["list", "create", "update", "delete"],
    },
    {
      noun: "redirect rule",
      gloss: "A {noun} sends requests for one URL to another with a 301 or 302.",
      parent: { noun: "zone", fields: [["zone_id", "string", "ID of the DNS zone"]] },
      id: ["rule_id", "string", "ID of the rule"],
      fields: [
        ["source_url!", "string", "URL pattern"],
        ["target_url!", "string", "Where to send"],
        ["status_code", "enum:301|302|307|308", "Redirect code"],
      ],
      verbs: ["list", "create", "delete"],
    },
    {
      noun: "traffic analytics",
      plural: "traffic analytics",
      gloss: "Requests, bandwidth, cache hit ratio and threats seen by {product}.",
      fields: [],
      verbs: [],
      custom: [
        {
          verb: "get traffic",
          name: "get traffic analytics",
          onItem: false,
          readOnly: true,
          description:
            "Returns requests, bandwidth, cached ratio and blocked threats of a zone over a period.",
          args: [
            ["zone_id!", "string", "Zone"],
            ["since!", "date-time", "Start"],
          ],
        },
      ],
    },
  ],
  products: [
    { key: "cloudflare", label: "Cloudflare", style: "snake" },
    {
      key: "route53",
      label: "Amazon Route 53",
      style: "camel",
      rename: { zone: "hosted zone" },
      without: ["certificate", "cache"],
    },
    {
      key: "fastly",
      label: "Fastly",
      style: "kebab",
      without: ["dns record", "zone"],
      rename: { zone: "service" },
    },
    { key: "letsencrypt", label: "Let's Encrypt", style: "snake", without: ["dns record", "zone", "cache"] },
    { key: "akamai", label: "Akamai", style: "camel", rename: { zone: "property" } },
  ],
};
