import type { CategorySpec } from "../catalog-spec.js";

/** Music streaming. */
export const MUSIC: CategorySpec = {
  category: "music",
  entities: [
    {
      noun: "playlist",
      gloss: "A {noun} is an ordered list of tracks.",
      fields: [
        ["name!", "string", "Name"],
        ["public", "boolean", "Whether others can see it"],
      ],
      verbs: ["list", "get", "create", "update"],
      custom: [
        {
          verb: "add tracks",
          name: "add tracks to playlist",
          description: "Adds songs to a {product} {noun}.",
          args: [["track_ids!", "string[]", "Tracks to add"]],
        },
      ],
    },
    {
      noun: "track",
      gloss: "A {noun} (song) with artist, album and duration.",
      fields: [],
      verbs: ["get", "search"],
    },
    {
      noun: "playback",
      plural: "playback",
      gloss: "What {product} is playing on your devices.",
      fields: [],
      verbs: [],
      custom: [
        {
          verb: "play",
          name: "start playback",
          onItem: false,
          description: "Starts or resumes playing music on a {product} device.",
          args: [["uri", "string", "Track, album or playlist to play"]],
        },
        { verb: "pause", name: "pause playback", onItem: false, description: "Pauses {product} playback." },
        {
          verb: "skip",
          name: "skip to next track",
          onItem: false,
          description: "Skips to the next song in {product}.",
        },
        {
          verb: "get currently playing",
          name: "get currently playing",
          onItem: false,
          readOnly: true,
          description: "Returns the song that is playing now on {product}.",
        },
      ],
    },
    {
      noun: "album",
      gloss: "An {noun} (record) by an artist, with its tracks.",
      fields: [],
      verbs: ["get", "search"],
      custom: [
        { verb: "save", name: "save album", description: "Saves an {noun} to your {product} library." },
      ],
    },
    {
      noun: "artist",
      gloss: "An {noun} (band, musician).",
      fields: [],
      verbs: ["get", "search"],
      custom: [
        {
          verb: "get top tracks",
          name: "get artist top tracks",
          readOnly: true,
          description: "Returns an {noun}'s most popular songs on {product}.",
        },
        { verb: "follow", name: "follow artist", description: "Follows an {noun} on {product}." },
      ],
    },
    {
      noun: "recommendation",
      gloss: "A {noun} of music based on seeds.",
      fields: [],
      verbs: [],
      custom: [
        {
          verb: "get recommendations",
          name: "get recommendations",
          onItem: false,
          readOnly: true,
          description: "Suggests songs similar to given tracks, artists or genres.",
          args: [
            ["seed_tracks", "string[]", "Tracks"],
            ["seed_genres", "string[]", "Genres"],
          ],
        },
        {
          verb: "get recently played",
          name: "get recently played",
          onItem: false,
          readOnly: true,
          description: "Returns the songs you listened to most recently on {product}.",
        },
      ],
    },
  ],
  products: [
    { key: "spotify", label: "Spotify", style: "snake" },
    { key: "apple music", label: "Apple Music", style: "camel", without: ["playback"] },
    { key: "deezer", label: "Deezer", style: "kebab" },
    { key: "soundcloud", label: "SoundCloud", style: "snake", without: ["playback"] },
  ],
};
