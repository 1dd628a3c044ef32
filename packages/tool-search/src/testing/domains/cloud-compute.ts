import type { CategorySpec } from "../catalog-spec.js";

/** Virtual machines and serverless functions. */
export const CLOUD_COMPUTE: CategorySpec = {
  category: "cloud compute",
  entities: [
    {
      noun: "instance",
      gloss: "An {noun} is a virtual machine (server) running in a region.",
      fields: [
        ["name!", "string", "Name of the instance"],
        ["machine_type!", "string", "Size, e.g. t3.medium"],
        ["image!", "string", "Operating system image"],
        ["region?", "string", "Region, e.g. eu-west-1"],
        ["state?", "enum:running|stopped|terminated", "Power state"],
        ["tags", "object", "Key-value tags"],
      ],
      verbs: ["list", "get", "create", "delete"],
      custom: [
        { verb: "start", name: "start instance", description: "Powers on a stopped {product} {noun}." },
        {
          verb: "stop",
          name: "stop instance",
          description: "Shuts down a running {product} {noun}; its disk is kept.",
        },
        { verb: "reboot", name: "reboot instance", description: "Restarts a {product} {noun}." },
        {
          verb: "resize",
          name: "resize instance",
          description: "Changes the machine type (CPU and memory) of a {product} {noun}.",
          args: [["machine_type!", "string", "New size"]],
        },
      ],
    },
    {
      noun: "snapshot",
      gloss: "A {noun} is a point-in-time copy of a disk volume.",
      fields: [
        ["volume_id!", "string", "Volume to copy"],
        ["description", "string", "What the snapshot is for"],
      ],
      verbs: ["list", "create", "delete"],
    },
    {
      noun: "volume",
      gloss: "A {noun} is a block storage disk attachable to an instance.",
      fields: [
        ["size_gb!", "integer", "Size in GiB"],
        ["zone!?", "string", "Availability zone"],
      ],
      verbs: ["list", "create", "delete"],
      custom: [
        {
          verb: "attach",
          name: "attach volume",
          description: "Attaches a {product} {noun} to an instance.",
          args: [["instance_id!", "string", "Instance to attach to"]],
        },
      ],
    },
    {
      noun: "firewall rule",
      gloss: "A {noun} (security group rule) allows or blocks traffic on ports from address ranges.",
      fields: [
        ["direction!", "enum:ingress|egress", "Incoming or outgoing"],
        ["port_range!", "string", "e.g. 443 or 8000-8100"],
        ["source_cidr", "string", "Address range, e.g. 10.0.0.0/8"],
        ["protocol", "enum:tcp|udp|icmp", "Protocol"],
      ],
      verbs: ["list", "create", "delete"],
    },
    {
      noun: "function",
      gloss: "A serverless {noun} runs code on demand without managing servers.",
      id: ["function_name", "string", "Name of the function"],
      fields: [
        ["runtime!", "string", "Runtime, e.g. nodejs20.x"],
        ["handler!", "string", "Entry point"],
        ["memory_mb", "integer", "Memory in MiB"],
        ["timeout_seconds", "integer", "Time limit"],
      ],
      verbs: ["list", "get", "create", "update", "delete"],
      custom: [
        {
          verb: "invoke",
          name: "invoke function",
          description: "Calls a {product} {noun} with a payload and returns its response.",
          args: [["payload", "object", "Event passed to the function"]],
        },
      ],
    },
    {
      noun: "machine image",
      gloss: "A {noun} (AMI, template) is an operating system disk that new instances boot from.",
      id: ["image_id", "string", "ID of the image"],
      fields: [
        ["name!", "string", "Name"],
        ["source_instance_id!", "string", "Instance to capture"],
        ["os?", "string", "Operating system"],
      ],
      verbs: ["list", "get", "create", "delete"],
    },
    {
      noun: "load balancer",
      gloss: "A {noun} spreads incoming traffic over several instances and checks their health.",
      fields: [
        ["name!", "string", "Name"],
        ["listeners!", "object", "Ports and protocols"],
        ["targets", "string[]", "Instances behind it"],
      ],
      verbs: ["list", "get", "create", "delete"],
      custom: [
        {
          verb: "get target health",
          name: "get load balancer target health",
          readOnly: true,
          description: "Returns which instances behind a {product} {noun} are healthy.",
        },
      ],
    },
    {
      noun: "ssh key",
      gloss: "An {noun} (key pair) lets you log in to new instances.",
      fields: [
        ["name!", "string", "Name"],
        ["public_key!", "string", "Public key"],
      ],
      verbs: ["list", "create", "delete"],
    },
    {
      noun: "static ip",
      gloss: "A {noun} (elastic or reserved address) stays the same when instances change.",
      fields: [["region?", "string", "Region"]],
      verbs: ["list", "create", "delete"],
      custom: [
        {
          verb: "assign",
          name: "assign static ip",
          description: "Assigns a {product} {noun} to an instance.",
          args: [["instance_id!", "string", "Instance"]],
        },
      ],
    },
    {
      noun: "region",
      gloss: "A {noun} (data center location) where {product} runs resources.",
      fields: [],
      verbs: ["list"],
    },
    {
      noun: "cost",
      plural: "costs",
      gloss: "What the {product} account spends, per service and day.",
      fields: [],
      verbs: [],
      custom: [
        {
          verb: "get cost report",
          name: "get cost report",
          onItem: false,
          readOnly: true,
          description:
            "Returns cloud spending on {product} between two dates, grouped by service, project or tag.",
          args: [
            ["start!", "date", "Start"],
            ["end!", "date", "End"],
            ["group_by", "enum:service|project|tag", "Grouping"],
          ],
        },
      ],
    },
  ],
  products: [
    { key: "aws ec2", label: "AWS EC2", style: "snake", without: ["function"] },
    {
      key: "aws lambda",
      label: "AWS Lambda",
      style: "snake",
      without: ["instance", "snapshot", "volume", "firewall rule"],
    },
    {
      key: "gcp compute",
      label: "Google Compute Engine",
      style: "camel",
      rename: { function: "cloud function" },
    },
    {
      key: "azure",
      label: "Azure",
      style: "pascal",
      rename: { instance: "virtual machine", function: "function app" },
    },
    { key: "digitalocean", label: "DigitalOcean", style: "snake", rename: { instance: "droplet" } },
    {
      key: "hetzner",
      label: "Hetzner Cloud",
      style: "kebab",
      rename: { instance: "server" },
      without: ["function"],
    },
    { key: "linode", label: "Linode", style: "snake", rename: { instance: "linode" }, without: ["function"] },
    { key: "vultr", label: "Vultr", style: "camel", without: ["function", "load balancer"] },
  ],
};
