import type { CategorySpec } from "../catalog-spec.js";

/** Market data and banking. */
export const FINANCE: CategorySpec = {
  category: "finance",
  entities: [
    {
      noun: "quote",
      gloss: "Market data from {product}.",
      fields: [],
      verbs: [],
      custom: [
        {
          verb: "get stock quote",
          name: "get stock quote",
          onItem: false,
          readOnly: true,
          description: "Returns the latest price, change and volume of a stock by ticker symbol.",
          args: [["symbol!", "string", "Ticker, e.g. AAPL"]],
        },
        {
          verb: "get price history",
          name: "get price history",
          onItem: false,
          readOnly: true,
          description: "Returns daily open, high, low, close prices of a stock between two dates.",
          args: [
            ["symbol!", "string", "Ticker"],
            ["from!", "date", "Start"],
            ["to!", "date", "End"],
          ],
        },
        {
          verb: "convert currency",
          name: "convert currency",
          onItem: false,
          readOnly: true,
          description: "Converts an amount between two currencies at the current exchange rate.",
          args: [
            ["amount!", "number", "Amount"],
            ["from!", "string", "Currency code, e.g. USD"],
            ["to!", "string", "Currency code, e.g. NOK"],
          ],
        },
        {
          verb: "get crypto price",
          name: "get crypto price",
          onItem: false,
          readOnly: true,
          description: "Returns the current price of a cryptocurrency such as bitcoin or ether.",
          args: [
            ["coin!", "string", "e.g. BTC"],
            ["vs_currency", "string", "Quote currency"],
          ],
        },
      ],
    },
    {
      noun: "company",
      plural: "companies",
      gloss: "A listed {noun} and its fundamentals.",
      id: ["symbol", "string", "Ticker"],
      fields: [],
      verbs: [],
      custom: [
        {
          verb: "get profile",
          name: "get company profile",
          readOnly: true,
          description: "Returns a listed {noun}'s sector, market cap, employees and description.",
        },
        {
          verb: "get financials",
          name: "get company financials",
          readOnly: true,
          description: "Returns a {noun}'s income statement, balance sheet and cash flow by quarter or year.",
          args: [["period", "enum:quarterly|annual", "Period"]],
        },
        {
          verb: "get earnings",
          name: "get earnings calendar",
          readOnly: true,
          description: "Returns upcoming and past earnings report dates and EPS of a {noun}.",
        },
        {
          verb: "get dividends",
          name: "get dividends",
          readOnly: true,
          description: "Returns the dividend history of a stock.",
        },
        {
          verb: "get news",
          name: "get company news",
          readOnly: true,
          description: "Returns recent news articles about a listed {noun}.",
        },
      ],
    },
    {
      noun: "symbol",
      gloss: "A ticker {noun} on an exchange.",
      fields: [],
      verbs: [],
      custom: [
        {
          verb: "search symbols",
          name: "search symbols",
          onItem: false,
          readOnly: true,
          description: "Finds ticker symbols by company name or keyword.",
          args: [["keywords!", "string", "Company name or keyword"]],
        },
        {
          verb: "get market status",
          name: "get market status",
          onItem: false,
          readOnly: true,
          description: "Returns whether stock exchanges are open or closed now.",
        },
      ],
    },
  ],
  products: [
    { key: "alpha vantage", label: "Alpha Vantage", style: "snake" },
    { key: "finnhub", label: "Finnhub", style: "camel" },
    { key: "polygon", label: "Polygon.io", style: "snake" },
    { key: "yahoo finance", label: "Yahoo Finance", style: "kebab" },
    { key: "twelve data", label: "Twelve Data", style: "snake" },
  ],
};
