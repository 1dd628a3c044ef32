import type { CategorySpec } from "../catalog-spec.js";

/** Video meetings. */
export const VIDEO_MEETINGS: CategorySpec = {
  category: "video meetings",
  entities: [
    {
      noun: "meeting",
      gloss: "A video {noun} with a join link, host and participants.",
      fields: [
        ["topic!", "string", "Topic"],
        ["start_time!", "date-time", "When it starts"],
        ["duration_minutes", "integer", "Length"],
        ["password", "string", "Passcode to join"],
      ],
      verbs: ["list", "get", "create", "update", "delete"],
      custom: [
        { verb: "end", name: "end meeting", description: "Ends a live {product} {noun} for everyone." },
        {
          verb: "list participants",
          name: "list meeting participants",
          readOnly: true,
          description: "Lists who joined a past {product} {noun} and for how long.",
        },
      ],
    },
    {
      noun: "recording",
      gloss: "A cloud {noun} of a meeting, with video, audio and transcript files.",
      fields: [["from?", "date", "Only recordings after this date"]],
      verbs: ["list", "get", "delete"],
      custom: [
        {
          verb: "get transcript",
          name: "get recording transcript",
          readOnly: true,
          description: "Returns the text transcript of a {product} meeting {noun}.",
        },
      ],
    },
    {
      noun: "webinar",
      gloss: "A {noun} is a large online event with hosts, panelists and registered attendees.",
      fields: [
        ["topic!", "string", "Topic"],
        ["start_time!", "date-time", "Start"],
        ["registration_required", "boolean", "Whether attendees register"],
      ],
      verbs: ["list", "get", "create", "delete"],
      custom: [
        {
          verb: "list registrants",
          name: "list webinar registrants",
          readOnly: true,
          description: "Lists people who registered for a {product} {noun}.",
        },
      ],
    },
    {
      noun: "meeting summary",
      plural: "meeting summaries",
      gloss: "An AI {noun} of what was said and decided in a meeting, with action items.",
      id: ["meeting_id", "string", "Meeting"],
      fields: [],
      verbs: ["get"],
    },
  ],
  products: [
    { key: "zoom", label: "Zoom", style: "snake" },
    { key: "webex", label: "Webex", style: "camel" },
    { key: "google meet", label: "Google Meet", style: "snake", rename: { meeting: "meeting space" } },
    { key: "gotomeeting", label: "GoTo Meeting", style: "camel", without: ["meeting summary"] },
  ],
};
