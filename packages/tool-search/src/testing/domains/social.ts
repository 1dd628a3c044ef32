import type { CategorySpec } from "../catalog-spec.js";

/** Social networks and video platforms. */
export const SOCIAL: CategorySpec = {
  category: "social",
  entities: [
    {
      noun: "post",
      gloss: "A public {noun} (status update) on {product}, with text, media and engagement counts.",
      fields: [
        ["text!", "string", "Text of the post"],
        ["media_ids", "string[]", "Images or videos to attach"],
        ["author?", "string", "Only posts by this account"],
      ],
      verbs: ["get", "create", "delete", "search"],
      custom: [
        {
          verb: "like",
          name: "like post",
          description: "Likes a {product} {noun}.",
        },
        {
          verb: "reply",
          name: "reply to post",
          description: "Publishes a reply to a {product} {noun}.",
          args: [["text!", "string", "Text of the reply"]],
        },
        {
          verb: "schedule",
          name: "schedule post",
          onItem: false,
          description: "Schedules a {noun} to be published on {product} later.",
          args: [
            ["text!", "string", "Text"],
            ["publish_at!", "date-time", "When to publish"],
          ],
        },
        {
          verb: "get analytics",
          name: "get post analytics",
          readOnly: true,
          description: "Returns impressions, reach and engagement of a {product} {noun}.",
        },
      ],
    },
    {
      noun: "follower",
      gloss: "A {noun} is an account that follows you on {product}.",
      fields: [["account_id?", "string", "Account whose followers to list"]],
      verbs: ["list", "count"],
    },
    {
      noun: "direct message",
      gloss: "A private {noun} between {product} accounts.",
      fields: [
        ["recipient_id!", "string", "Who receives it"],
        ["text!", "string", "Text"],
      ],
      verbs: ["list", "create"],
    },
    {
      noun: "mention",
      gloss: "A {noun} of your account or brand by someone else on {product}.",
      fields: [["since?", "date-time", "Only after this time"]],
      verbs: ["list"],
    },
    {
      noun: "profile",
      gloss: "A public {noun}: name, bio, avatar and follower counts on {product}.",
      id: ["handle", "string", "Account handle"],
      fields: [
        ["bio", "string", "Bio"],
        ["display_name", "string", "Name"],
      ],
      verbs: ["get", "update"],
    },
    {
      noun: "trend",
      gloss: "A {noun} (trending topic, hashtag) on {product} right now.",
      fields: [["location?", "string", "Country or city"]],
      verbs: ["list"],
    },
  ],
  products: [
    { key: "twitter", label: "X (Twitter)", style: "snake", rename: { post: "tweet" } },
    { key: "linkedin", label: "LinkedIn", style: "camel", rename: { follower: "connection" } },
    { key: "instagram", label: "Instagram", style: "snake", without: ["direct message"] },
    { key: "mastodon", label: "Mastodon", style: "kebab", rename: { post: "toot" } },
    { key: "bluesky", label: "Bluesky", style: "camel" },
    { key: "reddit", label: "Reddit", style: "snake", rename: { follower: "subscriber" } },
    {
      key: "youtube",
      label: "YouTube",
      style: "snake",
      without: ["post", "direct message"],
      rename: { follower: "subscriber" },
      extra: [
        {
          noun: "video",
          gloss: "A {noun} on {product}, with title, description, views and comments.",
          fields: [
            ["title!", "string", "Title"],
            ["description", "string", "Description"],
            ["privacy?", "enum:public|unlisted|private", "Who can watch"],
          ],
          verbs: ["list", "get", "update", "delete", "search"],
          custom: [
            {
              verb: "upload",
              name: "upload video",
              onItem: false,
              description: "Uploads a {noun} file to {product}.",
              args: [
                ["file_url!", "uri", "Where the video file is"],
                ["title!", "string", "Title"],
              ],
            },
            {
              verb: "get captions",
              name: "get video captions",
              readOnly: true,
              description: "Returns the captions (subtitles) of a {product} {noun} as text.",
              args: [["language", "string", "Caption language"]],
            },
          ],
        },
      ],
    },
    { key: "threads", label: "Threads", style: "snake", without: ["direct message"] },
  ],
};
