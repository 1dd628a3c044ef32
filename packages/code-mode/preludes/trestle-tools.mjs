// Trestle code mode, JavaScript prelude: gives a program the globals `tools` (an async function per tool, and
// `tools.call(name, args)`) and `ToolError`. Load it before the program: `node --import ./trestle-tools.mjs main.mjs`.
// Each call is one line of JSON on the tool channel, `{"id":1,"name":"get_weather","arguments":{…}}`, answered by
// `{"id":1,"result":…}` or `{"id":1,"error":{"message":"…"}}`. The router fills in CONFIG (Base64 JSON: the
// channel and the tools' names and identifiers) when it writes this file.
import { Buffer } from "node:buffer";
import net from "node:net";

const CONFIG = "__TRESTLE_TOOLS_CONFIG__";

/** Thrown by a call the tool reports as failed; `message` is the tool's error text, `tool` its name. */
class ToolError extends Error {
  constructor(message, tool) {
    super(message);
    this.name = "ToolError";
    this.tool = tool;
  }
}

/**
 * Opens the channel on first use. The socket does not keep the program alive while no call is waiting, so a
 * program that is done exits even though the channel is open.
 */
function createChannel(endpoint) {
  let socket;
  let failure;
  let nextId = 1;
  let buffer = "";
  const pending = new Map();

  const fail = (error) => {
    if (!failure) failure = error;
    for (const call of pending.values()) call.reject(failure);
    pending.clear();
    socket?.destroy();
  };
  const receive = (line) => {
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      fail(new Error("the tool channel sent a line that is not JSON"));
      return;
    }
    const call = pending.get(message?.id);
    if (!call) return;
    pending.delete(message.id);
    if (pending.size === 0) socket.unref();
    if (message.error !== undefined) {
      const text =
        typeof message.error?.message === "string" ? message.error.message : "the tool call failed";
      call.reject(new ToolError(text, call.name));
    } else call.resolve(message.result);
  };
  const open = () => {
    socket =
      "fd" in endpoint
        ? new net.Socket({ fd: endpoint.fd, readable: true, writable: true })
        : net.createConnection(endpoint.path);
    socket.setEncoding("utf8");
    socket.on("data", (chunk) => {
      buffer += chunk;
      for (let newline = buffer.indexOf("\n"); newline >= 0; newline = buffer.indexOf("\n")) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        if (line.trim() !== "") receive(line);
      }
    });
    socket.on("error", (error) => fail(new Error(`the tool channel failed: ${error.message}`)));
    socket.on("close", () => fail(new Error("the tool channel is closed")));
  };

  return (name, args) =>
    new Promise((resolve, reject) => {
      if (failure) {
        reject(failure);
        return;
      }
      let line;
      try {
        line = `${JSON.stringify({ id: nextId, name, arguments: args })}\n`;
      } catch (error) {
        reject(new TypeError(`the arguments of tool ${JSON.stringify(name)} are not JSON: ${error.message}`));
        return;
      }
      if (!socket) open();
      pending.set(nextId++, { name, resolve, reject });
      socket.ref();
      socket.write(line);
    });
}

function argumentsObject(args, label) {
  if (args === undefined || args === null) return {};
  if (typeof args !== "object" || Array.isArray(args))
    throw new TypeError(`${label} takes one object of arguments, e.g. ${label}({ city: "Oslo" })`);
  return args;
}

const config = JSON.parse(Buffer.from(CONFIG, "base64").toString("utf8"));
const callTool = createChannel(config.channel);
const tools = Object.create(null);
for (const { name, identifier } of config.tools) {
  const label = `tools.${identifier}`;
  const fn = {
    async [identifier](args) {
      return callTool(name, argumentsObject(args, label));
    },
  }[identifier];
  Object.defineProperty(tools, identifier, { value: fn, enumerable: true });
}
Object.defineProperty(tools, "call", {
  value: async function call(name, args) {
    if (typeof name !== "string" || name === "")
      throw new TypeError("tools.call(name, args) needs a tool's name");
    return callTool(name, argumentsObject(args, "tools.call"));
  },
});
Object.freeze(tools);
Object.defineProperty(globalThis, "tools", { value: tools });
Object.defineProperty(globalThis, "ToolError", { value: ToolError });

export { ToolError, tools };
