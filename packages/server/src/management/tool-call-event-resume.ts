import type { EventHub, Subscription, ToolCallEventListener } from "@trestle/bridge";
import type { ToolCallEvent } from "@trestle/core/events";

/**
 * The SSE id of a tool-call event: its `eventId` and its type, since a call's `started` and its `completed` or
 * `failed` event share one `eventId` and a resuming client must be able to name either.
 */
export function toolCallSseId(event: ToolCallEvent): string {
  return `${event.eventId}:${event.type}`;
}

/** Options for {@link subscribeResumable}. */
export interface ResumableToolCallEventsOptions {
  /** Only events for which it returns true are delivered (the history's included). */
  filter?: ((event: ToolCallEvent) => boolean) | undefined;
  /** The `Last-Event-ID` a reconnecting client sent: the events after it in the history come first. */
  lastEventId?: string | undefined;
}

/**
 * Delivers live tool-call events to `listener`, preceded, for a client that resumes with `Last-Event-ID`, by the
 * events of the history that came after that id: nothing lost between its two connections (while the history
 * still holds the id), nothing sent twice. An id the history no longer holds resumes with the live events alone.
 */
export function subscribeResumable(
  events: EventHub,
  options: ResumableToolCallEventsOptions,
  listener: ToolCallEventListener,
): Subscription {
  const { filter, lastEventId } = options;
  if (lastEventId !== undefined) {
    const history = events.history();
    const at = history.findIndex((event) => toolCallSseId(event) === lastEventId);
    for (const event of at === -1 ? [] : history.slice(at + 1)) {
      if (!filter || filter(event)) void listener(event, JSON.stringify(event));
    }
  }
  // Subscribed in the turn the history was read in: events are emitted on this thread, so none can come between
  // the two, and each is in exactly one of them.
  return events.subscribe(listener, filter ? { filter } : {});
}
