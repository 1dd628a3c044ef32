"""Trestle code mode, Python prelude: the `tools` object and `ToolError` for programs that execute_code runs.

Run a program with it: `python3 trestle_tools.py main.py [args...]`. The program then has `tools` and `ToolError`
as builtins (and can import them: `from trestle_tools import tools, ToolError`):

    forecast = tools.get_forecast(city="Oslo")        # keyword arguments, named as in the stub
    same = tools.call("get-forecast", {"city": "Oslo"})  # any tool by its original name

Each call is one line of JSON on the tool channel, {"id": 1, "name": "...", "arguments": {...}}, answered by
{"id": 1, "result": ...} or {"id": 1, "error": {"message": "..."}}. The router fills in _CONFIG (Base64 JSON: the
channel and the tools' names, identifiers and keyword names) when it writes this file.
"""

import base64
import builtins
import json
import runpy
import socket
import sys
import threading

_CONFIG = "__TRESTLE_TOOLS_CONFIG__"


class ToolError(Exception):
    """Raised by a call the tool reports as failed; str(error) is the tool's error text."""

    def __init__(self, message, tool):
        super().__init__(message)
        self.tool = tool


class _Channel:
    """One connection to the router, opened on first use; calls from several threads take turns."""

    def __init__(self, endpoint):
        self._endpoint = endpoint
        self._socket = None
        self._lock = threading.Lock()
        self._buffer = b""
        self._next_id = 1

    def _open(self):
        if self._socket is None:
            try:
                if "fd" in self._endpoint:
                    self._socket = socket.socket(fileno=self._endpoint["fd"])
                else:
                    self._socket = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                    self._socket.connect(self._endpoint["path"])
            except OSError as error:
                raise ConnectionError(f"no tool channel: {error}") from None
        return self._socket

    def _read_line(self, sock):
        while b"\n" not in self._buffer:
            chunk = sock.recv(65536)
            if not chunk:
                raise ConnectionError("the tool channel is closed")
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line

    def call(self, name, arguments):
        try:
            encoded = json.dumps(arguments, ensure_ascii=False, allow_nan=False)
        except (TypeError, ValueError) as error:
            raise TypeError(f"the arguments of tool {name!r} are not JSON: {error}") from None
        with self._lock:
            sock = self._open()
            call_id = self._next_id
            self._next_id += 1
            request = f'{{"id": {call_id}, "name": {json.dumps(name)}, "arguments": {encoded}}}\n'
            sock.sendall(request.encode("utf-8"))
            while True:
                line = self._read_line(sock)
                if not line.strip():
                    continue
                try:
                    message = json.loads(line)
                except ValueError:
                    raise ConnectionError("the tool channel sent a line that is not JSON") from None
                if not isinstance(message, dict) or message.get("id") != call_id:
                    continue
                if "error" in message:
                    error = message["error"]
                    text = error.get("message") if isinstance(error, dict) else None
                    raise ToolError(text if isinstance(text, str) else "the tool call failed", name)
                return message.get("result")


def _arguments(label, args, kwargs, parameters):
    if args:
        if len(args) == 1 and not kwargs and isinstance(args[0], dict):
            return dict(args[0])
        raise TypeError(f"{label}() takes keyword arguments, or one dict of arguments")
    # An argument given as None is left out, as the stub's "= None" defaults say.
    return {parameters.get(key, key): value for key, value in kwargs.items() if value is not None}


class _Tools:
    """An attribute per tool, and call(name, args) for any tool by its original name."""

    def __init__(self, functions, channel):
        object.__setattr__(self, "_functions", functions)
        object.__setattr__(self, "_channel", channel)

    def __getattr__(self, identifier):
        functions = object.__getattribute__(self, "_functions")
        if identifier in functions:
            return functions[identifier]
        raise AttributeError(f"no tool is named {identifier!r} here; tools.call(name, args) takes a tool's original name")

    def __setattr__(self, name, value):
        raise AttributeError("tools is read-only")

    def __dir__(self):
        return sorted([*object.__getattribute__(self, "_functions"), "call"])

    def call(self, name, args=None):
        if not isinstance(name, str) or not name:
            raise TypeError("tools.call(name, args) needs a tool's name")
        if args is not None and not isinstance(args, dict):
            raise TypeError("tools.call(name, args) takes the arguments as a dict")
        return object.__getattribute__(self, "_channel").call(name, dict(args or {}))


def _tool_function(channel, name, identifier, parameters):
    label = f"tools.{identifier}"

    def tool(*args, **kwargs):
        return channel.call(name, _arguments(label, args, kwargs, parameters))

    tool.__name__ = identifier
    tool.__qualname__ = label
    tool.__doc__ = f"Calls the tool {name!r}."
    return tool


def _load():
    config = json.loads(base64.b64decode(_CONFIG).decode("utf-8"))
    channel = _Channel(config["channel"])
    functions = {
        entry["identifier"]: _tool_function(channel, entry["name"], entry["identifier"], entry.get("parameters", {}))
        for entry in config["tools"]
    }
    return _Tools(functions, channel)


tools = _load()


def _run_program():
    if len(sys.argv) < 2:
        print("usage: python3 trestle_tools.py PROGRAM [ARG...]", file=sys.stderr)
        sys.exit(2)
    sys.modules["trestle_tools"] = sys.modules[__name__]
    builtins.tools = tools
    builtins.ToolError = ToolError
    program = sys.argv[1]
    sys.argv = sys.argv[1:]
    runpy.run_path(program, run_name="__main__")


if __name__ == "__main__":
    _run_program()
