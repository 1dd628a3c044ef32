import type { CategorySpec } from "../catalog-spec.js";

/** Knowledge and news. */
export const KNOWLEDGE: CategorySpec = {
  category: "knowledge",
  entities: [
    {
      noun: "article",
      gloss: "An {noun} from {product}.",
      fields: [],
      verbs: ["search"],
      custom: [
        {
          verb: "get summary",
          name: "get article summary",
          readOnly: true,
          description: "Returns the summary paragraph of a {product} {noun}.",
        },
      ],
    },
    {
      noun: "related article",
      gloss: "An {noun} close in topic to another.",
      id: ["title", "string", "Title of the article"],
      fields: [],
      verbs: ["list"],
    },
  ],
  products: [
    { key: "wikipedia", label: "Wikipedia", style: "snake" },
    {
      key: "newsapi",
      label: "NewsAPI",
      style: "snake",
      extra: [
        {
          noun: "headline",
          gloss: "Top {noun} news stories from publishers.",
          fields: [],
          verbs: [],
          custom: [
            {
              verb: "get top headlines",
              name: "get top headlines",
              onItem: false,
              readOnly: true,
              description:
                "Returns today's top news headlines for a country or category (business, sports, …).",
              args: [
                ["country", "string", "Country code"],
                ["category", "string", "News category"],
              ],
            },
          ],
        },
      ],
    },
    { key: "arxiv", label: "arXiv", style: "snake", rename: { article: "paper" } },
    {
      key: "hacker news",
      label: "Hacker News",
      style: "camel",
      rename: { article: "story", articles: "stories" },
    },
    { key: "stack overflow", label: "Stack Overflow", style: "snake", rename: { article: "question" } },
  ],
};
