import type { CategorySpec } from "../catalog-spec.js";

/** Kubernetes clusters. */
export const KUBERNETES: CategorySpec = {
  category: "kubernetes",
  entities: [
    {
      noun: "pod",
      gloss: "A {noun} is the smallest deployable unit of containers in Kubernetes.",
      parent: { noun: "namespace", fields: [["namespace", "string", "Kubernetes namespace"]] },
      id: ["name", "string", "Name of the pod"],
      fields: [["label_selector?", "string", "Only pods with these labels, e.g. app=web"]],
      verbs: ["list", "get", "delete"],
      custom: [
        {
          verb: "get logs",
          name: "get pod logs",
          readOnly: true,
          description: "Returns the container logs of a {noun}, optionally the previous crashed container's.",
          args: [
            ["container", "string", "Container name"],
            ["tail_lines", "integer", "Only the last N lines"],
            ["previous", "boolean", "Logs of the previous instance"],
          ],
        },
        {
          verb: "exec",
          name: "exec in pod",
          description: "Runs a command inside a running {noun}'s container.",
          args: [["command!", "string[]", "Command and arguments"]],
        },
      ],
    },
    {
      noun: "deployment",
      gloss: "A {noun} keeps a set of identical pods running and rolls out new versions.",
      parent: { noun: "namespace", fields: [["namespace", "string", "Kubernetes namespace"]] },
      id: ["name", "string", "Name of the deployment"],
      fields: [
        ["image", "string", "Container image"],
        ["replicas", "integer", "Number of pods"],
      ],
      verbs: ["list", "get", "update", "delete"],
      custom: [
        {
          verb: "scale",
          name: "scale deployment",
          description: "Sets the number of replicas of a {noun}.",
          args: [["replicas!", "integer", "Desired replicas"]],
        },
        {
          verb: "restart",
          name: "restart deployment",
          description: "Restarts every pod of a {noun} (rolling restart).",
        },
        {
          verb: "rollback",
          name: "rollback deployment",
          description: "Rolls a {noun} back to its previous revision.",
        },
      ],
    },
    {
      noun: "service",
      gloss: "A {noun} gives pods a stable network name and load-balances traffic to them.",
      parent: { noun: "namespace", fields: [["namespace", "string", "Kubernetes namespace"]] },
      id: ["name", "string", "Name of the service"],
      fields: [],
      verbs: ["list", "get", "delete"],
    },
    {
      noun: "namespace",
      gloss: "A {noun} isolates groups of resources within one cluster.",
      id: ["name", "string", "Name of the namespace"],
      fields: [["name!", "string", "Name of the namespace"]],
      verbs: ["list", "create", "delete"],
    },
    {
      noun: "node",
      gloss: "A {noun} is a worker machine of the cluster.",
      id: ["name", "string", "Name of the node"],
      fields: [],
      verbs: ["list", "get"],
      custom: [
        {
          verb: "cordon",
          name: "cordon node",
          description: "Marks a {noun} unschedulable so no new pods land on it.",
        },
        {
          verb: "drain",
          name: "drain node",
          description: "Evicts every pod from a {noun} before maintenance.",
        },
      ],
    },
    {
      noun: "config map",
      gloss: "A {noun} stores non-secret configuration as key-value pairs.",
      parent: { noun: "namespace", fields: [["namespace", "string", "Kubernetes namespace"]] },
      id: ["name", "string", "Name of the config map"],
      fields: [["data!", "object", "Keys and values"]],
      verbs: ["list", "get", "create", "update"],
    },
    {
      noun: "job",
      gloss: "A {noun} runs pods to completion, once.",
      parent: { noun: "namespace", fields: [["namespace", "string", "Kubernetes namespace"]] },
      id: ["name", "string", "Name of the job"],
      fields: [
        ["image!", "string", "Container image"],
        ["command", "string[]", "Command"],
      ],
      verbs: ["list", "get", "create", "delete"],
    },
    {
      noun: "cron job",
      gloss: "A {noun} creates jobs on a repeating schedule.",
      parent: { noun: "namespace", fields: [["namespace", "string", "Kubernetes namespace"]] },
      id: ["name", "string", "Name of the cron job"],
      fields: [
        ["schedule!", "string", "Cron expression"],
        ["image!", "string", "Container image"],
        ["suspend", "boolean", "Whether runs are paused"],
      ],
      verbs: ["list", "get", "create", "update", "delete"],
      custom: [
        {
          verb: "trigger",
          name: "trigger cron job",
          description: "Runs a {noun} now, outside its schedule.",
        },
      ],
    },
    {
      noun: "secret",
      gloss: "A Kubernetes {noun} holds passwords, tokens or keys for pods, Base64-encoded.",
      parent: { noun: "namespace", fields: [["namespace", "string", "Kubernetes namespace"]] },
      id: ["name", "string", "Name of the secret"],
      fields: [["data!", "object", "Keys and values"]],
      verbs: ["list", "get", "create", "delete"],
    },
    {
      noun: "ingress",
      plural: "ingresses",
      gloss: "An {noun} routes outside HTTP traffic by host and path to services.",
      parent: { noun: "namespace", fields: [["namespace", "string", "Kubernetes namespace"]] },
      id: ["name", "string", "Name of the ingress"],
      fields: [["rules!", "object", "Host and path rules"]],
      verbs: ["list", "get", "create", "delete"],
    },
    {
      noun: "cluster event",
      gloss: "A {noun} reports something that happened to an object: scheduling, pulls, crashes, evictions.",
      parent: { noun: "namespace", fields: [["namespace", "string", "Kubernetes namespace"]] },
      fields: [
        ["involved_object?", "string", "Only events about this object"],
        ["type?", "enum:Normal|Warning", "Severity"],
      ],
      verbs: ["list"],
    },
    {
      noun: "persistent volume claim",
      gloss: "A {noun} requests durable storage for pods.",
      parent: { noun: "namespace", fields: [["namespace", "string", "Kubernetes namespace"]] },
      id: ["name", "string", "Name of the claim"],
      fields: [
        ["size!", "string", "e.g. 10Gi"],
        ["storage_class", "string", "Storage class"],
      ],
      verbs: ["list", "get", "create", "delete"],
    },
    {
      noun: "helm release",
      gloss: "A {noun} is a chart installed into the cluster, with its values and revision history.",
      parent: { noun: "namespace", fields: [["namespace", "string", "Kubernetes namespace"]] },
      id: ["release", "string", "Name of the release"],
      fields: [
        ["chart!", "string", "Chart, e.g. bitnami/postgresql"],
        ["values", "object", "Values to override"],
      ],
      verbs: ["list", "get"],
      custom: [
        {
          verb: "install",
          name: "install helm chart",
          onItem: false,
          description: "Installs a Helm chart as a new release in a namespace.",
          args: [
            ["release!", "string", "Release name"],
            ["chart!", "string", "Chart"],
            ["values", "object", "Values"],
          ],
        },
        {
          verb: "upgrade",
          name: "upgrade helm release",
          description: "Upgrades a {noun} to a new chart version or values.",
          args: [["values", "object", "Values"]],
        },
        {
          verb: "uninstall",
          name: "uninstall helm release",
          destructive: true,
          description: "Uninstalls a {noun}.",
        },
      ],
    },
  ],
  products: [
    { key: "k8s", label: "Kubernetes", style: "snake" },
    { key: "openshift", label: "OpenShift", style: "camel" },
    { key: "rancher", label: "Rancher", style: "kebab" },
  ],
};
