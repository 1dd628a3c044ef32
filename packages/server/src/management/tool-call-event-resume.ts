import type { EventHub } from "@trestle/bridge";
import type { ToolCallEvent } from "@trestle/core";

/**
 * The SSE id of a tool-call event: its `eventId` and its type, since a call's `started` and its `completed` or
 * `failed` event share one `eventId` and a resuming client must be able to name either.
 */
export function toolCallSseId(event: ToolCallEvent): string {
  return `${event.eventId}:${event.type}`;
}

/** Options for {@link resumableToolCallEvents}. */
export interface ResumableToolCallEventsOptions {
  /** Ends the stream when it aborts. */
  signal: AbortSignal;
  /** Only events for which it returns true are delivered (the history's included). */
  filter?: (event: ToolCallEvent) => boolean;
  /** The `Last-Event-ID` a reconnecting client sent: the events after it in the history come first. */
  lastEventId?: string | undefined;
}

/**
 * Live tool-call events, preceded, for a client that resumes with `Last-Event-ID`, by the events of the
 * history that came after that id: nothing lost between its two connections (while the history still holds the
 * id), nothing sent twice. An id the history no longer holds resumes with the live events alone.
 */
export async function* resumableToolCallEvents(
  events: EventHub,
  options: ResumableToolCallEventsOptions,
): AsyncGenerator<ToolCallEvent, void, undefined> {
  // Subscribed before the history is read: an event emitted in between is then in one or both, never in none.
  const live = events.stream({
    signal: options.signal,
    ...(options.filter ? { filter: options.filter } : {}),
  });
  const sent = new Set<string>();
  if (options.lastEventId !== undefined) {
    const history = events.history();
    const at = history.findIndex((event) => toolCallSseId(event) === options.lastEventId);
    if (at !== -1) {
      for (const event of history.slice(at + 1)) {
        if (options.filter && !options.filter(event)) continue;
        sent.add(toolCallSseId(event));
        yield event;
      }
    }
  }
  for await (const event of live) {
    // Only what the history already gave can repeat; once past it, the set is no longer needed.
    if (sent.size > 0) {
      const id = toolCallSseId(event);
      if (sent.delete(id)) continue;
    }
    yield event;
  }
}
