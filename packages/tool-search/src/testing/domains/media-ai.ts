import type { CategorySpec } from "../catalog-spec.js";

/** Speech and document AI. */
export const MEDIA_AI: CategorySpec = {
  category: "media ai",
  entities: [
    {
      noun: "audio",
      plural: "audio",
      gloss: "Speech processing by {product}.",
      fields: [],
      verbs: [],
      custom: [
        {
          verb: "transcribe",
          name: "transcribe audio",
          onItem: false,
          description: "Transcribes speech in an audio or video file to text, with timestamps and speakers.",
          args: [
            ["audio_url!", "uri", "The recording"],
            ["language", "string", "Spoken language"],
            ["diarize", "boolean", "Label who speaks"],
          ],
        },
        {
          verb: "synthesize",
          name: "synthesize speech",
          onItem: false,
          description: "Turns text into natural-sounding speech (text to speech) and returns an audio file.",
          args: [
            ["text!", "string", "Text to speak"],
            ["voice", "string", "Voice name"],
          ],
        },
      ],
    },
    {
      noun: "document",
      gloss: "Document analysis by {product}.",
      fields: [],
      verbs: [],
      custom: [
        {
          verb: "extract text",
          name: "extract text from image",
          onItem: false,
          readOnly: true,
          description: "Reads printed or handwritten text from an image or scanned PDF (OCR).",
          args: [["file_url!", "uri", "Image or PDF"]],
        },
        {
          verb: "extract tables",
          name: "extract tables",
          onItem: false,
          readOnly: true,
          description: "Finds tables in a scanned document and returns their rows and cells.",
          args: [["file_url!", "uri", "Image or PDF"]],
        },
      ],
    },
    {
      noun: "image",
      gloss: "Image analysis by {product}.",
      fields: [],
      verbs: [],
      custom: [
        {
          verb: "detect labels",
          name: "detect image labels",
          onItem: false,
          readOnly: true,
          description: "Describes what an image shows: objects, scenes and activities, with confidence.",
          args: [["image_url!", "uri", "Image"]],
        },
        {
          verb: "detect faces",
          name: "detect faces",
          onItem: false,
          readOnly: true,
          description: "Finds faces in an image with their position and expressions.",
          args: [["image_url!", "uri", "Image"]],
        },
        {
          verb: "moderate",
          name: "moderate image",
          onItem: false,
          readOnly: true,
          description: "Checks an image for adult, violent or unsafe content.",
          args: [["image_url!", "uri", "Image"]],
        },
      ],
    },
    {
      noun: "voice",
      gloss: "A synthetic {noun} for text to speech.",
      fields: [["language?", "string", "Language"]],
      verbs: ["list", "get", "delete"],
      custom: [
        {
          verb: "clone",
          name: "clone voice",
          onItem: false,
          description: "Creates a custom voice from sample recordings of a speaker.",
          args: [
            ["name!", "string", "Name"],
            ["sample_urls!", "uri[]", "Recordings"],
          ],
        },
      ],
    },
    {
      noun: "transcription job",
      gloss: "A {noun} transcribing a long recording in the background.",
      fields: [["status?", "enum:queued|processing|completed|error", "Status"]],
      verbs: ["list", "get", "delete"],
    },
  ],
  products: [
    { key: "assemblyai", label: "AssemblyAI", style: "snake", without: ["document"] },
    { key: "deepgram", label: "Deepgram", style: "camel", without: ["document"] },
    { key: "aws textract", label: "Amazon Textract", style: "snake", without: ["audio"] },
    { key: "elevenlabs", label: "ElevenLabs", style: "kebab", without: ["document"] },
    { key: "google vision", label: "Google Cloud Vision", style: "camel", without: ["audio"] },
    { key: "rev ai", label: "Rev.ai", style: "snake", without: ["document", "image", "voice"] },
  ],
};
