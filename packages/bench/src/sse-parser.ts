import { createParser } from "eventsource-parser";

/** One server-sent event: its `event` name (default "message"), its `id` if it had one, and its data lines joined by "\n". */
export interface SseEvent {
  event: string;
  id?: string;
  data: string;
}

/**
 * An incremental reader of a `text/event-stream` body on `eventsource-parser`: feed it chunks as they arrive, it
 * returns the events completed so far. An event without a `data:` line (a priming event with an id only) is not
 * one; comments are skipped.
 */
export interface SseParser {
  push(chunk: string): SseEvent[];
}

/** Creates an {@link SseParser}. */
export function createSseParser(): SseParser {
  let completed: SseEvent[] = [];
  const parser = createParser({
    onEvent: ({ event, id, data }) => {
      completed.push(
        id === undefined ? { event: event ?? "message", data } : { event: event ?? "message", id, data },
      );
    },
  });
  return {
    push(chunk) {
      parser.feed(chunk);
      const events = completed;
      completed = [];
      return events;
    },
  };
}
