import type { TransportNames } from "./transport-names.js";

/** The README of a new transport package: what it holds, what to change first, how to publish and load it. */
export function transportPackageReadme(names: TransportNames, files: readonly string[]): string {
  const { packageName, protocol, pascal } = names;
  const sources = files.filter((file) => file.startsWith("src/") || file.startsWith("test/")).sort();
  return `# ${packageName}

A [Trestle](https://example.invalid/trestle) transport plugin: the router loads it by configuration and routes
tool calls, resource reads, provisioning and code execution to capability services that speak \`${protocol}\`.

It starts as a working copy of Trestle's worked example: a transport speaking plain HTTP+JSON, the capability
server at the other end of that wire, and the transport test kit (\`describeTransportContract\` from
\`@trestle/core/testing\`) run against the pair. Replace the wire with your protocol and keep the kit passing.

\`\`\`sh
npm install
npm test            # the transport kit and the plugin module's shape
npm run typecheck
npm run build       # dist/, what the package publishes
\`\`\`

## Files

${sources.map((file) => `- \`${file}\``).join("\n")}

- \`src/plugin.ts\` is the plugin contract (\`@trestle/core/plugin\`): the factory as the default export,
  \`contractVersion = 1\` (a literal: the router compares it with the versions it supports) and
  \`optionsSchema\` (zod), which \`transports.${protocol}.options\` must satisfy. \`src/index.ts\` is the package's
  main entry and re-exports them.
- \`src/${protocol}-transport.ts\` is the client side: \`create${pascal}Transport\` returns the \`BridgeTransport\`
  the router calls.
- \`src/${protocol}-capability-server.ts\` serves \`ServiceHandlers\` on the other end of the wire: the tests use it;
  your real services may be written in any language.
- \`src/wire.ts\` is the wire: paths, envelopes, how errors travel.

## What to change first

1. The wire: rewrite \`src/wire.ts\`, \`src/${protocol}-transport.ts\` and \`src/${protocol}-capability-server.ts\` for
   your protocol. Every failure must reach the router as a \`TrestleError\` with a \`Code\`; cancellation and
   deadlines must reach the service.
2. The options: add what a deployer must set (an address, a credential file, a pool size) to \`optionsSchema\` in
   \`src/plugin.ts\`, keep it strict (an unknown field refused), and pass them to the transport in the factory.
   Update \`test/plugin.test.ts\` with a good and a bad value of each.
3. The kit: \`test/transport-contract.test.ts\` runs \`describeTransportContract\`. If your wire cannot carry part
   of the contract (code execution, provisioning, resources, error codes, …), say so with its \`expresses\`
   option; the kit then checks that those calls fail with \`Unimplemented\` instead.
4. This README, \`description\`, \`license\` and \`repository\` in package.json.

## Publish

Releases are kept with [changesets](https://github.com/changesets/changesets): \`.changeset/first-release.md\`
makes the first release 0.1.0; describe each later change with \`npx changeset\`.

\`\`\`sh
npm test && npm run typecheck
npm run version     # applies the changesets: the version in package.json and CHANGELOG.md
npm run release     # changeset publish: npm publish of the new version (prepack builds dist/ first)
\`\`\`

\`@trestle/core\` is a peer dependency: the router's own copy is used, so its \`TrestleError\` and contract are the
ones your transport returns. Raise the range when you move to a new contract version.

## Load it in a router

Install the package where the router finds it: beside the router (with a global \`npm i -g @trestle/server\`,
\`npm i -g ${packageName}\`), or in the directory the configuration's \`transportPluginDirectory\` names
(\`npm install --prefix <dir> ${packageName}\`). Then wire it in the configuration under the protocol it serves:

\`\`\`yaml
transports:
  ${protocol}:
    package: "${packageName}"
    options:
      unaryTimeoutMs: 5000
\`\`\`

Services that register with \`"protocol": "${protocol}"\` (or that the configuration's \`services.<name>.protocol\`
sends there) are then called through this transport. The router refuses to start when the options do not satisfy
\`optionsSchema\` or the contract version is not one it supports, and names the plugin when it does.
`;
}
