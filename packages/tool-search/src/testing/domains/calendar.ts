import type { CategorySpec } from "../catalog-spec.js";

/** Calendars and meetings. */
export const CALENDAR: CategorySpec = {
  category: "calendar",
  entities: [
    {
      noun: "event",
      gloss: "A calendar {noun} (meeting, appointment) with a start, an end, attendees and a location.",
      parent: {
        noun: "calendar",
        fields: [["calendar_id", "string", "Calendar; the primary one when absent"]],
      },
      fields: [
        ["summary!", "string", "Title of the event"],
        ["start!", "date-time", "When it starts"],
        ["end!", "date-time", "When it ends"],
        ["attendees", "email[]", "People invited"],
        ["location", "string", "Where it takes place"],
        ["time_min?", "date-time", "Only events after this time"],
        ["time_max?", "date-time", "Only events before this time"],
        ["recurrence", "string", "Repeat rule, e.g. RRULE:FREQ=WEEKLY"],
      ],
      verbs: ["list", "get", "create", "update", "delete", "search"],
      custom: [
        {
          verb: "respond",
          name: "respond to event",
          description: "Accepts, declines or tentatively accepts a {product} {noun} invitation.",
          args: [["response!", "enum:accepted|declined|tentative", "Your answer"]],
        },
        {
          verb: "move",
          name: "move event",
          description: "Moves a {product} {noun} to another calendar.",
          args: [["destination_calendar_id!", "string", "Target calendar"]],
        },
      ],
    },
    {
      noun: "calendar",
      gloss: "A {noun} holds events; a user may have several and see shared ones.",
      fields: [
        ["summary!", "string", "Name of the calendar"],
        ["time_zone", "string", "Time zone, e.g. Europe/Oslo"],
      ],
      verbs: ["list", "get", "create", "delete"],
    },
    {
      noun: "availability",
      plural: "availability",
      gloss: "Free and busy time of people in {product}.",
      fields: [],
      verbs: [],
      custom: [
        {
          verb: "get free busy",
          name: "get free busy",
          onItem: false,
          readOnly: true,
          description:
            "Returns when the given people are busy between two times, to find a slot everyone is free.",
          args: [
            ["emails!", "email[]", "People to check"],
            ["time_min!", "date-time", "Start of the window"],
            ["time_max!", "date-time", "End of the window"],
          ],
        },
        {
          verb: "find meeting times",
          name: "find meeting times",
          onItem: false,
          readOnly: true,
          description:
            "Suggests times when all attendees and rooms are available for a meeting of a given length.",
          args: [
            ["attendees!", "email[]", "People who must attend"],
            ["duration_minutes!", "integer", "Length of the meeting"],
          ],
        },
      ],
    },
    {
      noun: "room",
      gloss: "A meeting {noun} (resource) that can be booked with an event.",
      fields: [
        ["building?", "string", "Building"],
        ["capacity?", "integer", "Seats"],
      ],
      verbs: ["list", "get"],
    },
    {
      noun: "calendar share",
      gloss: "A {noun} lets another person see or edit a calendar.",
      parent: { noun: "calendar", fields: [["calendar_id", "string", "Calendar"]] },
      id: ["email", "email", "Person"],
      fields: [["role!", "enum:free_busy|reader|writer|owner", "Access"]],
      verbs: ["list", "create", "delete"],
    },
    {
      noun: "working hours",
      plural: "working hours",
      gloss: "Your {noun} tell others when you can be booked.",
      fields: [["schedule!", "object", "Days and hours"]],
      verbs: ["get", "update"],
    },
  ],
  products: [
    { key: "google calendar", label: "Google Calendar", style: "snake" },
    { key: "outlook calendar", label: "Outlook Calendar", style: "camel" },
    { key: "caldav", label: "CalDAV", style: "kebab", without: ["availability"] },
    {
      key: "calendly",
      label: "Calendly",
      style: "snake",
      without: ["calendar", "availability"],
      rename: { event: "scheduled event" },
      extra: [
        {
          noun: "scheduling link",
          gloss: "A {noun} lets someone book a time with you in {product}.",
          fields: [["event_type!", "string", "Kind of meeting"]],
          verbs: ["create"],
        },
      ],
    },
    { key: "fastmail calendar", label: "Fastmail Calendar", style: "kebab", without: ["room"] },
  ],
};
