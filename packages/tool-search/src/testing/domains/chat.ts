import type { CategorySpec } from "../catalog-spec.js";

/** Team chat. */
export const CHAT: CategorySpec = {
  category: "chat",
  entities: [
    {
      noun: "message",
      gloss: "A chat {noun} posted in a channel or direct conversation.",
      parent: { noun: "channel", fields: [["channel_id", "string", "ID of the channel or conversation"]] },
      id: ["message_ts", "string", "Timestamp ID of the message"],
      fields: [
        ["text!", "string", "Text of the message (Markdown)"],
        ["thread_ts", "string", "Reply in the thread of this message"],
        ["from_user?", "string", "Only messages by this user"],
        ["after?", "date-time", "Only messages after this time"],
      ],
      verbs: ["list", "update", "delete", "search"],
      custom: [
        {
          verb: "send",
          name: "send message",
          onItem: false,
          description: "Posts a {noun} to a {product} channel, optionally as a reply in a thread.",
          args: [
            ["text!", "string", "Text of the message"],
            ["thread_ts", "string", "Reply in the thread of this message"],
          ],
        },
        {
          verb: "schedule",
          name: "schedule message",
          onItem: false,
          description: "Schedules a {noun} to be posted to a {product} channel at a later time.",
          args: [
            ["text!", "string", "Text of the message"],
            ["post_at!", "date-time", "When to post it"],
          ],
        },
        {
          verb: "pin",
          name: "pin message",
          description: "Pins a {noun} to the top of a {product} channel.",
        },
        {
          verb: "add reaction",
          name: "add reaction",
          description: "Adds an emoji reaction to a {product} {noun}.",
          args: [["emoji!", "string", "Emoji name, e.g. thumbsup"]],
        },
        {
          verb: "get thread",
          name: "get thread replies",
          readOnly: true,
          description: "Returns the replies in the thread under a {product} {noun}.",
        },
      ],
    },
    {
      noun: "channel",
      gloss: "A {noun} is a conversation space for a team or topic in {product}.",
      id: ["channel_id", "string", "ID of the channel"],
      fields: [
        ["name!", "string", "Name of the channel"],
        ["is_private?", "boolean", "Whether only invited members can join"],
        ["topic", "string", "Topic shown in the header"],
      ],
      verbs: ["list", "get", "create", "archive"],
      custom: [
        {
          verb: "invite",
          name: "invite to channel",
          description: "Invites users to a {product} {noun}.",
          args: [["user_ids!", "string[]", "Users to invite"]],
        },
        {
          verb: "set topic",
          name: "set channel topic",
          description: "Changes the topic of a {product} {noun}.",
          args: [["topic!", "string", "New topic"]],
        },
      ],
    },
    {
      noun: "member",
      gloss: "A {noun} of the {product} workspace, with profile and presence.",
      id: ["user_id", "string", "ID of the user"],
      fields: [["email?", "email", "Email address"]],
      verbs: ["list", "get"],
      custom: [
        {
          verb: "set status",
          name: "set status",
          onItem: false,
          description: "Sets your {product} status text and emoji, optionally until a time.",
          args: [
            ["text!", "string", "Status text"],
            ["emoji", "string", "Status emoji"],
            ["expires_at", "date-time", "When it clears"],
          ],
        },
        {
          verb: "send direct message",
          name: "send direct message",
          description: "Sends a private direct message to one {product} {noun}.",
          args: [["text!", "string", "Text of the message"]],
        },
      ],
    },
    {
      noun: "reminder",
      gloss: "A {noun} that {product} delivers to a user at a given time.",
      fields: [
        ["text!", "string", "What to remind about"],
        ["time!", "date-time", "When to remind"],
      ],
      verbs: ["list", "create", "delete"],
    },
    {
      noun: "shared file",
      gloss: "A {noun} uploaded into a conversation.",
      fields: [
        ["channel_id?", "string", "Only files in this channel"],
        ["user?", "string", "Only files from this user"],
      ],
      verbs: ["list", "get", "delete"],
      custom: [
        {
          verb: "upload",
          name: "upload file to channel",
          onItem: false,
          description: "Uploads a file into a {product} channel or conversation, with an optional comment.",
          args: [
            ["channel_id!", "string", "Channel"],
            ["file_name!", "string", "File name"],
            ["content_base64!", "string", "Content"],
            ["initial_comment", "string", "Message with the file"],
          ],
        },
      ],
    },
    {
      noun: "user group",
      gloss: "A {noun} (like @oncall) mentions several people at once.",
      fields: [
        ["handle!", "string", "Handle, e.g. oncall"],
        ["members", "string[]", "Users"],
      ],
      verbs: ["list", "create", "update"],
    },
    {
      noun: "bookmark",
      gloss: "A {noun} pins a link at the top of a channel.",
      parent: { noun: "channel", fields: [["channel_id", "string", "ID of the channel"]] },
      fields: [
        ["title!", "string", "Title"],
        ["link!", "uri", "URL"],
      ],
      verbs: ["list", "create", "delete"],
    },
    {
      noun: "custom emoji",
      gloss: "A {noun} uploaded to the {product} workspace.",
      id: ["name", "string", "Emoji name"],
      fields: [["image_url!", "uri", "Image"]],
      verbs: ["list", "create"],
    },
  ],
  products: [
    { key: "slack", label: "Slack", style: "snake" },
    { key: "discord", label: "Discord", style: "camel", without: ["reminder"] },
    { key: "teams", label: "Microsoft Teams", style: "dot", without: ["reminder"] },
    { key: "mattermost", label: "Mattermost", style: "snake" },
    {
      key: "google chat",
      label: "Google Chat",
      style: "camel",
      rename: { channel: "space" },
      without: ["reminder"],
    },
    { key: "rocketchat", label: "Rocket.Chat", style: "kebab", rename: { channel: "room" } },
    {
      key: "telegram",
      label: "Telegram",
      style: "camel",
      rename: { channel: "chat" },
      without: ["reminder", "member"],
    },
    { key: "zulip", label: "Zulip", style: "snake", rename: { channel: "stream" } },
    {
      key: "webex messaging",
      label: "Webex Messaging",
      style: "camel",
      rename: { channel: "room" },
      without: ["reminder", "custom emoji"],
    },
  ],
};
