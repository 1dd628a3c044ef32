/** Talks to a router's management API, unwrapping the `{error, data}` envelope. */
export class ManagementClient {
  constructor(
    private readonly baseUrl: string,
    private readonly token: string | undefined,
  ) {}

  /** Sends a request; resolves with `data`, rejects with the router's error message and HTTP status. */
  async request<T = unknown>(method: string, path: string, body?: unknown, raw?: string): Promise<T> {
    const headers: Record<string, string> = {};
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    if (body !== undefined) headers["content-type"] = "application/json";
    let response: Response;
    try {
      response = await fetch(new URL(path, this.baseUrl), {
        method,
        headers,
        ...(body !== undefined ? { body: JSON.stringify(body) } : raw !== undefined ? { body: raw } : {}),
      });
    } catch (error) {
      throw new CliError(
        `Cannot reach the router at ${this.baseUrl}: ${(error as Error).cause ?? (error as Error).message}`,
        3,
      );
    }
    const text = await response.text();
    let envelope: { error?: { message?: string } | null; data?: unknown } | undefined;
    try {
      envelope = JSON.parse(text);
    } catch {
      envelope = undefined;
    }
    if (!response.ok) {
      throw new CliError(
        `${response.status}: ${envelope?.error?.message ?? (text.slice(0, 200) || response.statusText)}`,
        1,
      );
    }
    return (envelope?.data ?? null) as T;
  }

  /** Opens an SSE stream and calls `onEvent` for each event until it ends or `signal` aborts. */
  async stream(
    path: string,
    onEvent: (event: string, data: string) => void,
    signal?: AbortSignal,
    init?: RequestInit,
  ): Promise<void> {
    const headers: Record<string, string> = { accept: "text/event-stream" };
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    const response = await fetch(new URL(path, this.baseUrl), {
      ...init,
      headers,
      ...(signal ? { signal } : {}),
    });
    if (!response.ok || !response.body) throw new CliError(`${response.status}: ${await response.text()}`, 1);
    const decoder = new TextDecoder();
    let buffer = "";
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      let end = buffer.indexOf("\n\n");
      while (end !== -1) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        let event = "message";
        const data: string[] = [];
        for (const line of frame.split("\n")) {
          if (line.startsWith("event: ")) event = line.slice(7);
          else if (line.startsWith("data: ")) data.push(line.slice(6));
        }
        if (data.length > 0) onEvent(event, data.join("\n"));
        end = buffer.indexOf("\n\n");
      }
    }
  }
}

/** A failure the CLI reports in one line, with the exit code scripts can rely on. */
export class CliError extends Error {
  constructor(
    message: string,
    /** 1: the router refused; 2: bad usage; 3: the router is unreachable. */
    readonly exitCode: number,
  ) {
    super(message);
  }
}
