/** One server-sent event: its `event` name (default "message") and its data lines joined by "\n". */
export interface SseEvent {
  event: string;
  data: string;
}

/**
 * An incremental parser of a `text/event-stream` body: feed it chunks as they arrive, it returns the events
 * completed so far. Only `event:` and `data:` fields matter here; `id:`, `retry:` and comments are skipped.
 */
export interface SseParser {
  push(chunk: string): SseEvent[];
}

/** Creates an {@link SseParser}. */
export function createSseParser(): SseParser {
  let buffer = "";
  let event = "message";
  let data: string[] = [];
  return {
    push(chunk) {
      buffer += chunk;
      const events: SseEvent[] = [];
      let newline = buffer.indexOf("\n");
      while (newline >= 0) {
        let line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        if (line.endsWith("\r")) line = line.slice(0, -1);
        if (line === "") {
          if (data.length > 0) events.push({ event, data: data.join("\n") });
          event = "message";
          data = [];
        } else if (line.startsWith("data:")) {
          data.push(line.slice(line.startsWith("data: ") ? 6 : 5));
        } else if (line.startsWith("event:")) {
          event = line.slice(6).trim();
        }
        newline = buffer.indexOf("\n");
      }
      return events;
    },
  };
}
