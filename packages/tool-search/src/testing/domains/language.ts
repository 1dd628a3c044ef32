import type { CategorySpec } from "../catalog-spec.js";

/** Translation, speech and documents. */
export const LANGUAGE: CategorySpec = {
  category: "language",
  entities: [
    {
      noun: "text",
      gloss: "Language processing by {product}.",
      fields: [],
      verbs: [],
      custom: [
        {
          verb: "translate",
          name: "translate text",
          onItem: false,
          readOnly: true,
          description: "Translates text into another language with {product}.",
          args: [
            ["text!", "string", "Text to translate"],
            ["target_language!", "string", "Language code, e.g. de"],
            ["source_language", "string", "Detected when absent"],
            ["formality", "enum:default|more|less", "Tone"],
          ],
        },
        {
          verb: "detect language",
          name: "detect language",
          onItem: false,
          readOnly: true,
          description: "Detects which language a text is written in.",
          args: [["text!", "string", "The text"]],
        },
        {
          verb: "translate document",
          name: "translate document",
          onItem: false,
          description: "Translates a whole document (PDF, DOCX, PPTX) keeping its formatting.",
          args: [
            ["file_url!", "uri", "The document"],
            ["target_language!", "string", "Language code"],
          ],
        },
      ],
    },
    {
      noun: "glossary",
      plural: "glossaries",
      gloss: "A {noun} fixes how specific terms are translated.",
      fields: [
        ["name!", "string", "Name"],
        ["entries!", "object", "Source and target terms"],
      ],
      verbs: ["list", "create", "delete"],
    },
    {
      noun: "writing",
      plural: "writing",
      gloss: "Text tools from {product}.",
      fields: [],
      verbs: [],
      custom: [
        {
          verb: "check grammar",
          name: "check grammar",
          onItem: false,
          readOnly: true,
          description: "Finds spelling and grammar mistakes in a text and suggests corrections.",
          args: [
            ["text!", "string", "Text"],
            ["language", "string", "Language"],
          ],
        },
        {
          verb: "rephrase",
          name: "rephrase text",
          onItem: false,
          readOnly: true,
          description: "Rewrites a text in another style or tone (formal, casual, shorter).",
          args: [
            ["text!", "string", "Text"],
            ["style", "enum:formal|casual|simple|shorter", "Style"],
          ],
        },
        {
          verb: "transliterate",
          name: "transliterate text",
          onItem: false,
          readOnly: true,
          description: "Converts text from one script to another (e.g. Cyrillic to Latin letters).",
          args: [
            ["text!", "string", "Text"],
            ["to_script!", "string", "Target script"],
          ],
        },
      ],
    },
    {
      noun: "translation usage",
      plural: "translation usage",
      gloss: "Characters translated this billing period.",
      fields: [],
      verbs: ["get"],
    },
    {
      noun: "supported language",
      gloss: "A {noun} {product} can translate from or to.",
      fields: [],
      verbs: ["list"],
    },
  ],
  products: [
    { key: "deepl", label: "DeepL", style: "snake" },
    { key: "google translate", label: "Google Translate", style: "camel", without: ["glossary"] },
    { key: "azure translator", label: "Azure Translator", style: "pascal" },
    { key: "amazon translate", label: "Amazon Translate", style: "snake", without: ["glossary"] },
    { key: "modernmt", label: "ModernMT", style: "kebab" },
  ],
};
