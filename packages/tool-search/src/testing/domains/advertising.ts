import type { CategorySpec } from "../catalog-spec.js";

/** Online advertising. */
export const ADVERTISING: CategorySpec = {
  category: "advertising",
  entities: [
    {
      noun: "ad campaign",
      gloss: "An {noun} with a budget, targeting and schedule, made of ad groups and ads.",
      fields: [
        ["name!", "string", "Name"],
        ["daily_budget!", "number", "Daily budget"],
        ["status?", "enum:enabled|paused|removed", "Status"],
        ["objective", "string", "e.g. conversions, traffic"],
      ],
      verbs: ["list", "get", "create", "update"],
      custom: [
        {
          verb: "pause",
          name: "pause ad campaign",
          description: "Pauses a {product} {noun} so it stops spending.",
        },
        {
          verb: "get performance",
          name: "get ad campaign performance",
          readOnly: true,
          description: "Returns impressions, clicks, cost, conversions and cost per click of a {noun}.",
          args: [
            ["start_date!", "date", "Start"],
            ["end_date!", "date", "End"],
          ],
        },
      ],
    },
    {
      noun: "keyword",
      gloss: "A search {noun} an ad group bids on.",
      fields: [
        ["text!", "string", "Keyword"],
        ["match_type", "enum:exact|phrase|broad", "Match type"],
        ["ad_group_id!?", "string", "Ad group"],
      ],
      verbs: ["list", "create", "delete"],
    },
    {
      noun: "audience",
      gloss: "An {noun} (custom audience, remarketing list) of people to target.",
      fields: [["name!", "string", "Name"]],
      verbs: ["list", "create"],
    },
    {
      noun: "ad group",
      gloss: "An {noun} holds ads and targeting within a campaign.",
      fields: [
        ["campaign_id!?", "string", "Campaign"],
        ["name!", "string", "Name"],
        ["bid", "number", "Default bid"],
      ],
      verbs: ["list", "get", "create", "update"],
    },
    {
      noun: "ad",
      gloss: "An {noun} (creative): headline, text, image and landing page.",
      fields: [
        ["ad_group_id!?", "string", "Ad group"],
        ["headline!", "string", "Headline"],
        ["final_url!", "uri", "Landing page"],
      ],
      verbs: ["list", "get", "create", "delete"],
    },
    {
      noun: "conversion action",
      gloss: "A {noun} is what counts as a conversion (purchase, signup) for bidding and reports.",
      fields: [
        ["name!", "string", "Name"],
        ["category!", "enum:purchase|signup|lead|page_view", "Category"],
      ],
      verbs: ["list", "create"],
    },
  ],
  products: [
    { key: "google ads", label: "Google Ads", style: "snake" },
    { key: "meta ads", label: "Meta Ads", style: "camel", without: ["keyword"] },
    { key: "linkedin ads", label: "LinkedIn Ads", style: "camel", without: ["keyword"] },
    { key: "microsoft ads", label: "Microsoft Advertising", style: "pascal" },
  ],
};
