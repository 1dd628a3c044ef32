import type { CategorySpec } from "../catalog-spec.js";

/** Wikis and document editors. */
export const DOCUMENTS: CategorySpec = {
  category: "documents",
  entities: [
    {
      noun: "page",
      gloss: "A {noun} of documentation or notes, with rich text and a place in a hierarchy.",
      parent: { noun: "space", fields: [["space_key", "string", "Key of the space"]] },
      fields: [
        ["title!", "string", "Title of the page"],
        ["content!", "string", "Body of the page, in Markdown"],
        ["parent_page_id", "string", "Page to nest it under"],
        ["label?", "string", "Label of the page"],
      ],
      verbs: ["list", "get", "create", "update", "delete", "search", "archive"],
      custom: [
        {
          verb: "move",
          name: "move page",
          description: "Moves a {product} {noun} under another parent page or into another space.",
          args: [["target_parent_id!", "string", "New parent page"]],
        },
        {
          verb: "get history",
          name: "get page history",
          readOnly: true,
          description: "Lists the versions of a {product} {noun}: who changed it and when.",
        },
      ],
    },
    {
      noun: "space",
      gloss: "A {noun} is a top-level area that holds a team's pages.",
      id: ["space_key", "string", "Key of the space"],
      fields: [
        ["name!", "string", "Name of the space"],
        ["description", "string", "What the space is for"],
      ],
      verbs: ["list", "get", "create"],
    },
    {
      noun: "comment",
      gloss: "A {noun} on a page, inline or at its foot.",
      parent: { noun: "page", fields: [["page_id", "string", "ID of the page"]] },
      fields: [["body!", "string", "Text of the comment"]],
      verbs: ["list", "create", "delete"],
    },
    {
      noun: "template",
      gloss: "A {noun} is the starting content for new pages, like a meeting notes layout.",
      fields: [
        ["name!", "string", "Name of the template"],
        ["content!", "string", "Body of the template"],
      ],
      verbs: ["list", "get", "create"],
    },
    {
      noun: "attachment",
      gloss: "An {noun} is a file (image, PDF) uploaded to a page.",
      parent: { noun: "page", fields: [["page_id", "string", "ID of the page"]] },
      fields: [
        ["file_name!", "string", "File name"],
        ["content_base64!", "string", "Content, Base64-encoded"],
      ],
      verbs: ["list", "create", "delete"],
    },
    {
      noun: "page permission",
      gloss: "A {noun} says who may view or edit a page.",
      parent: { noun: "page", fields: [["page_id", "string", "ID of the page"]] },
      id: ["principal", "string", "User or group"],
      fields: [["access!", "enum:view|comment|edit", "Access"]],
      verbs: ["list", "create", "delete"],
    },
    {
      noun: "export",
      gloss: "An {noun} of pages to PDF, Word or HTML.",
      fields: [],
      verbs: [],
      custom: [
        {
          verb: "export page",
          name: "export page as pdf",
          onItem: false,
          readOnly: true,
          description: "Exports a {product} page (and optionally its children) as a PDF or Word file.",
          args: [
            ["page_id!", "string", "Page"],
            ["format", "enum:pdf|docx|html", "File format"],
            ["include_children", "boolean", "Include sub-pages"],
          ],
        },
      ],
    },
  ],
  products: [
    { key: "confluence", label: "Confluence", style: "snake" },
    {
      key: "notion",
      label: "Notion",
      style: "snake",
      rename: { space: "workspace" },
      without: ["template"],
      extra: [
        {
          noun: "database",
          gloss: "A Notion {noun} is a table of pages with typed properties.",
          fields: [["title!", "string", "Title of the database"]],
          verbs: ["get", "create"],
          custom: [
            {
              verb: "query",
              name: "query database",
              readOnly: true,
              description: "Returns the rows of a Notion {noun} that match a filter, sorted.",
              args: [
                ["filter", "object", "Property filter"],
                ["sorts", "object", "Sort order"],
              ],
            },
          ],
        },
      ],
    },
    {
      key: "google docs",
      label: "Google Docs",
      style: "camel",
      rename: { page: "document", space: "folder" },
    },
    { key: "coda", label: "Coda", style: "kebab", rename: { space: "folder", page: "doc" } },
    { key: "gitbook", label: "GitBook", style: "snake", without: ["template", "comment"] },
    { key: "slite", label: "Slite", style: "snake", rename: { page: "note", space: "channel" } },
    { key: "outline", label: "Outline", style: "kebab", rename: { page: "document", space: "collection" } },
  ],
};
