import type { CategorySpec } from "../catalog-spec.js";

/** Object storage and file sharing. */
export const FILES: CategorySpec = {
  category: "files",
  entities: [
    {
      noun: "file",
      gloss: "A {noun} stored in {product}, with its name, size and modification time.",
      id: ["file_id", "string", "ID or path of the file"],
      fields: [
        ["name!", "string", "File name"],
        ["folder_id?", "string", "Folder it is in"],
        ["content_base64!", "string", "File content, Base64-encoded"],
        ["mime_type?", "string", "Media type, e.g. application/pdf"],
      ],
      verbs: ["list", "get", "delete", "search"],
      custom: [
        {
          verb: "upload",
          name: "upload file",
          onItem: false,
          description: "Uploads a {noun} to {product}.",
          args: [
            ["name!", "string", "File name"],
            ["folder_id", "string", "Destination folder"],
            ["content_base64!", "string", "File content, Base64-encoded"],
          ],
        },
        {
          verb: "download",
          name: "download file",
          readOnly: true,
          description: "Downloads the content of a {product} {noun}.",
        },
        {
          verb: "move",
          name: "move file",
          description: "Moves or renames a {noun} in {product}.",
          args: [
            ["destination_folder_id", "string", "New folder"],
            ["new_name", "string", "New name"],
          ],
        },
        {
          verb: "copy",
          name: "copy file",
          description: "Makes a copy of a {product} {noun}.",
          args: [["destination_folder_id", "string", "Folder for the copy"]],
        },
        {
          verb: "share",
          name: "share file",
          description: "Shares a {product} {noun} with people, or creates a link anyone can open.",
          args: [
            ["emails", "email[]", "People to share with"],
            ["role!", "enum:viewer|commenter|editor", "What they may do"],
            ["anyone_with_link", "boolean", "Create a public link instead"],
          ],
        },
        {
          verb: "list versions",
          name: "list file versions",
          readOnly: true,
          description: "Lists earlier versions (revisions) of a {product} {noun}.",
        },
      ],
    },
    {
      noun: "folder",
      gloss: "A {noun} (directory) groups files in {product}.",
      fields: [
        ["name!", "string", "Folder name"],
        ["parent_id", "string", "Folder to create it in"],
      ],
      verbs: ["list", "create", "delete"],
    },
    {
      noun: "file comment",
      gloss: "A {noun} left by a collaborator on a shared file.",
      parent: { noun: "file", fields: [["file_id", "string", "ID of the file"]] },
      id: ["comment_id", "string", "ID of the comment"],
      fields: [["content!", "string", "Text"]],
      verbs: ["list", "create", "delete"],
    },
    {
      noun: "permission",
      gloss: "A sharing {noun} grants a person, group or link access to a file or folder.",
      parent: { noun: "file", fields: [["file_id", "string", "ID of the file or folder"]] },
      id: ["permission_id", "string", "ID of the permission"],
      fields: [["role!", "enum:viewer|commenter|editor|owner", "Access"]],
      verbs: ["list", "update", "delete"],
    },
    {
      noun: "trash",
      plural: "trash",
      gloss: "Deleted files stay in the {noun} for 30 days before they are gone.",
      fields: [],
      verbs: [],
      custom: [
        {
          verb: "list trash",
          name: "list trashed files",
          onItem: false,
          readOnly: true,
          description: "Lists files in the {product} {noun}.",
        },
        {
          verb: "restore",
          name: "restore trashed file",
          onItem: false,
          description: "Restores a deleted file from the {product} {noun}.",
          args: [["file_id!", "string", "File"]],
        },
        {
          verb: "empty",
          name: "empty trash",
          onItem: false,
          destructive: true,
          description: "Permanently deletes everything in the {product} {noun}.",
        },
      ],
    },
    {
      noun: "storage quota",
      plural: "storage quota",
      gloss: "How much space the account uses and has left in {product}.",
      fields: [],
      verbs: ["get"],
    },
  ],
  products: [
    { key: "google drive", label: "Google Drive", style: "snake" },
    { key: "dropbox", label: "Dropbox", style: "snake" },
    { key: "box", label: "Box", style: "camel" },
    { key: "onedrive", label: "OneDrive", style: "camel" },
    { key: "sharepoint", label: "SharePoint", style: "pascal", rename: { folder: "document library" } },
    {
      key: "s3",
      label: "Amazon S3",
      style: "snake",
      rename: { file: "object", folder: "bucket" },
      without: [],
    },
    { key: "gcs", label: "Google Cloud Storage", style: "dot", rename: { file: "object", folder: "bucket" } },
    {
      key: "azure blob",
      label: "Azure Blob Storage",
      style: "camel",
      rename: { file: "blob", folder: "container" },
    },
    { key: "nextcloud", label: "Nextcloud", style: "kebab" },
    { key: "egnyte", label: "Egnyte", style: "snake" },
  ],
};
