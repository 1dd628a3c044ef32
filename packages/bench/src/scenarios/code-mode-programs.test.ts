import { execFileSync } from "node:child_process";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { echoProgram } from "./code-mode.js";

/** An echo `tools` as code mode's prelude gives it, answering `answer(text)`. */
const jsTools = (answer: (text: string) => string) => ({
  echo: async ({ text }: { text: string }) => answer(text),
});

async function runJs(
  calls: number,
  answer: (text: string) => string,
): Promise<{ out: string[]; made: number }> {
  const out: string[] = [];
  let made = 0;
  const tools = jsTools((text) => {
    made++;
    return answer(text);
  });
  runInNewContext(echoProgram("javascript", calls), {
    tools,
    console: { log: (line: string) => out.push(line) },
  });
  await new Promise((resolve) => setTimeout(resolve, 20));
  return { out, made };
}

function runPython(calls: number, answer: "echo" | "wrong"): string {
  const prelude = [
    "class _Tools:",
    `    def echo(self, text): return text if ${answer === "echo" ? "True" : "False"} else 'no'`,
    "tools = _Tools()",
  ].join("\n");
  return execFileSync("python3", ["-c", `${prelude}\n${echoProgram("python", calls)}`], {
    encoding: "utf8",
  }).trim();
}

describe("the benchmark's echo programs", () => {
  it("make the calls one after the other in JavaScript and count the answers that came back", async () => {
    expect(await runJs(5, (text) => text)).toEqual({ out: ["ok 5"], made: 5 });
    expect(await runJs(5, () => "something else")).toEqual({ out: ["ok 0"], made: 5 });
    expect(await runJs(0, (text) => text)).toEqual({ out: ["ok 0"], made: 0 });
  });

  it("do the same in Python", () => {
    expect(runPython(7, "echo")).toBe("ok 7");
    expect(runPython(7, "wrong")).toBe("ok 0");
    expect(runPython(0, "echo")).toBe("ok 0");
  });
});
