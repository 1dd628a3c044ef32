// A program that uses the published packages exactly as a user would: no workspace, no TypeScript sources, only
// what `npm install @trestle/...` puts in node_modules. `pnpm pack-check` copies this file into a scratch project
// outside the repository, installs the packed tarballs there, type-checks it with tsc and runs it with node.
import { create } from "@bufbuild/protobuf";
import { createCapabilityServer } from "@trestle/capability";
import { Code, isTrestleError, type ServiceTarget, TrestleError } from "@trestle/core";
import { RuntimeStatus } from "@trestle/proto";
import { legacyTool } from "@trestle/proto/legacy";
import { createGrpcTransport } from "@trestle/transport-grpc";

// A capability service made with the SDK, in this process, on any free port.
const server = createCapabilityServer({
  toolInvoker(request) {
    const name = request.arguments.name;
    if (!name) throw new TrestleError("Missing required parameter(s): name", Code.InvalidArgument);
    return { content: [`Hello, ${name}!`] };
  },
  healthProbe: () => ({ status: RuntimeStatus.STARTED }),
});
const { host, port } = await server.listen();
const target: ServiceTarget = {
  id: "greeter-1",
  serviceName: "greeter",
  host,
  port,
  serviceType: "tool-invoker",
};

// The router's side of the wire: the gRPC transport.
const transport = createGrpcTransport({ unaryTimeoutMs: 5_000 });
try {
  const health = await transport.probeHealth(target);
  // The router's calls are protocol-neutral; the transport sends the contract's ToolInvokeRequest.
  const tool = { name: "hello", type: "greeter", uri: "greeter://hello" };
  const reply = await transport.callTool({ tool, arguments: { name: "packed world" } }, target);
  // A service error comes back as the one TrestleError class of @trestle/core, with the service's code: this
  // fails if npm installed two copies of @trestle/core.
  const failure: unknown = await transport
    .callTool({ tool, arguments: {} }, target)
    .catch((error: unknown) => error);
  if (!isTrestleError(failure, Code.InvalidArgument))
    throw new Error(`unexpected failure: ${String(failure)}`);
  // The legacy dialect's types are a separate entry point.
  const legacy = create(legacyTool.ToolInvokeRequestSchema, { uri: "greeter://hello" });

  console.log(`health: ${health.state}`);
  console.log(`reply: ${reply.content.map((block) => (block.type === "text" ? block.text : "")).join("")}`);
  console.log(`error: ${failure.rawMessage}`);
  console.log(`legacy message: ${legacy.$typeName}`);
} finally {
  await transport.close();
  await server.close();
}
