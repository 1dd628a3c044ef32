import type { CategorySpec } from "../catalog-spec.js";

/** Identity, access and secrets. */
export const IDENTITY: CategorySpec = {
  category: "identity",
  entities: [
    {
      noun: "user",
      gloss: "A {noun} account that signs in through {product}.",
      fields: [
        ["email!?", "email", "Email address"],
        ["first_name", "string", "Given name"],
        ["last_name", "string", "Family name"],
        ["status?", "enum:active|suspended|deprovisioned", "Account status"],
      ],
      verbs: ["list", "get", "create", "update", "delete", "search"],
      custom: [
        {
          verb: "suspend",
          name: "suspend user",
          description: "Suspends a {product} {noun} so they cannot sign in.",
        },
        {
          verb: "unsuspend",
          name: "unsuspend user",
          description: "Lets a suspended {product} {noun} sign in again.",
        },
        {
          verb: "reset password",
          name: "reset user password",
          description: "Sends a {product} {noun} a password reset link, or sets a temporary password.",
        },
        {
          verb: "reset mfa",
          name: "reset user mfa",
          description:
            "Removes a {noun}'s enrolled second factors (authenticator app, security key) in {product}.",
        },
        {
          verb: "list sessions",
          name: "list user sessions",
          readOnly: true,
          description: "Lists the active sign-in sessions of a {product} {noun}.",
        },
      ],
    },
    {
      noun: "group",
      gloss: "A {noun} of users that share access to applications.",
      fields: [
        ["name!", "string", "Name of the group"],
        ["description", "string", "What it is for"],
      ],
      verbs: ["list", "get", "create", "delete"],
      custom: [
        {
          verb: "add member",
          name: "add user to group",
          description: "Adds a user to a {product} {noun}.",
          args: [["user_id!", "string", "User to add"]],
        },
        {
          verb: "remove member",
          name: "remove user from group",
          description: "Removes a user from a {product} {noun}.",
          args: [["user_id!", "string", "User to remove"]],
        },
      ],
    },
    {
      noun: "api key",
      gloss: "An {noun} (access token) lets a program call the {product} API.",
      fields: [
        ["name!", "string", "Label of the key"],
        ["scopes", "string[]", "What the key may do"],
        ["expires_at", "date-time", "When it stops working"],
      ],
      verbs: ["list", "create", "delete"],
      custom: [
        {
          verb: "rotate",
          name: "rotate api key",
          description: "Replaces a {product} {noun} with a new secret.",
        },
      ],
    },
    {
      noun: "application",
      gloss: "An {noun} (app integration) users sign in to with single sign-on (SSO, SAML, OIDC).",
      fields: [
        ["label!", "string", "Name shown to users"],
        ["sign_on_mode!", "enum:saml|oidc|bookmark", "How users sign in"],
      ],
      verbs: ["list", "get", "create", "delete"],
      custom: [
        {
          verb: "assign user",
          name: "assign user to application",
          description: "Gives a user access to an {noun} in {product}.",
          args: [["user_id!", "string", "User"]],
        },
      ],
    },
    {
      noun: "sign-in event",
      gloss: "A {noun} records a login attempt: who, when, from where, and whether it succeeded.",
      fields: [
        ["user?", "string", "Only this user"],
        ["outcome?", "enum:success|failure", "Result"],
        ["since?", "date-time", "Only after this time"],
      ],
      verbs: ["list"],
    },
    {
      noun: "role",
      gloss: "A {noun} bundles admin permissions that can be assigned to users.",
      fields: [
        ["name!", "string", "Name"],
        ["permissions!", "string[]", "Permissions"],
      ],
      verbs: ["list", "get", "create"],
      custom: [
        {
          verb: "assign",
          name: "assign role",
          description: "Assigns a {product} admin {noun} to a user.",
          args: [["user_id!", "string", "User"]],
        },
      ],
    },
  ],
  products: [
    { key: "okta", label: "Okta", style: "snake" },
    { key: "auth0", label: "Auth0", style: "camel" },
    { key: "entra", label: "Microsoft Entra ID", style: "pascal" },
    { key: "google workspace", label: "Google Workspace", style: "snake" },
    {
      key: "vault",
      label: "HashiCorp Vault",
      style: "snake",
      without: ["user", "group", "api key"],
      extra: [
        {
          noun: "secret",
          gloss: "A {noun} (password, token, key) stored encrypted at a path in {product}.",
          id: ["path", "string", "Path of the secret, e.g. kv/app/db"],
          fields: [["data!", "object", "Keys and values of the secret"]],
          verbs: ["list", "get", "delete"],
          custom: [
            {
              verb: "write",
              name: "write secret",
              description: "Writes or updates a {noun} in {product}, keeping the previous version.",
              args: [["data!", "object", "Keys and values"]],
            },
          ],
        },
      ],
    },
    {
      key: "1password",
      label: "1Password",
      style: "kebab",
      without: ["user", "group", "api key"],
      extra: [
        {
          noun: "item",
          gloss: "A vault {noun}: a login, password, secure note or credit card stored in {product}.",
          parent: { noun: "vault", fields: [["vault_id", "string", "ID of the vault"]] },
          fields: [
            ["title!", "string", "Title of the item"],
            ["category?", "enum:login|password|secure_note|credit_card", "Kind of item"],
            ["fields", "object", "Username, password and other fields"],
          ],
          verbs: ["list", "get", "create", "update", "delete"],
        },
      ],
    },
    { key: "onelogin", label: "OneLogin", style: "snake" },
    { key: "keycloak", label: "Keycloak", style: "kebab", rename: { application: "client" } },
  ],
};
