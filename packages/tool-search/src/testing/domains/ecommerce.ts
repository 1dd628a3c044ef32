import type { CategorySpec } from "../catalog-spec.js";

/** Online shops. */
export const ECOMMERCE: CategorySpec = {
  category: "ecommerce",
  entities: [
    {
      noun: "order",
      gloss: "A customer {noun} in the shop: items bought, totals, shipping address and fulfillment status.",
      fields: [
        ["customer_id?", "string", "Customer"],
        ["line_items!", "object", "Products and quantities"],
        ["financial_status?", "enum:pending|paid|refunded|voided", "Payment status"],
        ["fulfillment_status?", "enum:unfulfilled|partial|fulfilled", "Shipping status"],
        ["created_after?", "date-time", "Only orders after this time"],
      ],
      verbs: ["list", "get", "create", "update", "count", "export"],
      custom: [
        {
          verb: "cancel",
          name: "cancel order",
          description: "Cancels a {product} {noun}, optionally refunding and restocking it.",
          args: [
            ["refund", "boolean", "Refund the payment"],
            ["restock", "boolean", "Return items to inventory"],
          ],
        },
        {
          verb: "fulfill",
          name: "fulfill order",
          description: "Marks a {product} {noun} as shipped, with a tracking number.",
          args: [
            ["tracking_number", "string", "Carrier tracking number"],
            ["carrier", "string", "Carrier"],
          ],
        },
      ],
    },
    {
      noun: "product",
      gloss: "A {noun} for sale in the store, with title, price, images and variants.",
      fields: [
        ["title!", "string", "Title"],
        ["price!", "number", "Price"],
        ["sku?", "string", "Stock keeping unit"],
        ["vendor?", "string", "Brand"],
        ["status?", "enum:active|draft|archived", "Status"],
      ],
      verbs: ["list", "get", "create", "update", "delete", "search", "count"],
    },
    {
      noun: "inventory level",
      gloss: "The stock on hand of a product variant at a location (warehouse).",
      id: ["inventory_item_id", "string", "Inventory item"],
      fields: [["location_id?", "string", "Warehouse or store"]],
      verbs: ["list"],
      custom: [
        {
          verb: "adjust",
          name: "adjust inventory",
          description: "Adds to or subtracts from the stock of an item at a location in {product}.",
          args: [
            ["location_id!", "string", "Location"],
            ["delta!", "integer", "Change in quantity"],
          ],
        },
      ],
    },
    {
      noun: "discount code",
      gloss: "A {noun} (coupon, promo code) customers enter at checkout for a price reduction.",
      fields: [
        ["code!", "string", "The code, e.g. SUMMER20"],
        ["percentage", "number", "Percent off"],
        ["ends_at", "date-time", "When it expires"],
      ],
      verbs: ["list", "get", "create", "delete"],
    },
    {
      noun: "return",
      gloss: "A {noun} (RMA) of items a customer sends back.",
      fields: [
        ["order_id!?", "string", "Order the items came from"],
        ["items!", "object", "Items and quantities"],
        ["reason", "string", "Why they are returned"],
      ],
      verbs: ["list", "get", "create"],
      custom: [{ verb: "approve", name: "approve return", description: "Approves a {product} {noun}." }],
    },
    {
      noun: "review",
      gloss: "A product {noun} with a star rating written by a customer.",
      fields: [
        ["product_id?", "string", "Product reviewed"],
        ["rating?", "integer", "Stars, 1 to 5"],
      ],
      verbs: ["list"],
      custom: [
        {
          verb: "respond",
          name: "respond to review",
          description: "Posts the shop's public response to a customer {noun}.",
          args: [["body!", "string", "Response"]],
        },
      ],
    },
    {
      noun: "shop customer",
      gloss: "A {noun} account with orders, addresses and marketing consent.",
      fields: [
        ["email!?", "email", "Email"],
        ["first_name", "string", "Given name"],
        ["last_name", "string", "Family name"],
        ["accepts_marketing?", "boolean", "Newsletter consent"],
      ],
      verbs: ["list", "get", "create", "update", "search", "count"],
    },
    {
      noun: "collection",
      gloss: "A {noun} (category) groups products on the storefront.",
      fields: [
        ["title!", "string", "Title"],
        ["rules", "object", "Automatic membership rules"],
      ],
      verbs: ["list", "get", "create", "delete"],
      custom: [
        {
          verb: "add product",
          name: "add product to collection",
          description: "Adds a product to a {product} {noun}.",
          args: [["product_id!", "string", "Product"]],
        },
      ],
    },
    {
      noun: "gift card",
      gloss: "A {noun} with a balance that customers spend at checkout.",
      fields: [
        ["initial_value!", "number", "Amount"],
        ["code", "string", "Code; generated when absent"],
        ["expires_on", "date", "Expiry"],
      ],
      verbs: ["list", "get", "create"],
      custom: [{ verb: "disable", name: "disable gift card", description: "Disables a {product} {noun}." }],
    },
    {
      noun: "abandoned checkout",
      gloss: "An {noun} is a cart a shopper left without paying.",
      fields: [["since?", "date-time", "Only after this time"]],
      verbs: ["list"],
      custom: [
        {
          verb: "send recovery email",
          name: "send cart recovery email",
          description: "Emails the shopper a link back to their {noun}.",
        },
      ],
    },
    {
      noun: "product variant",
      gloss: "A {noun} is one option of a product (size, colour) with its own price, SKU and stock.",
      parent: { noun: "product", fields: [["product_id", "string", "Product"]] },
      fields: [
        ["option_values!", "string[]", "e.g. Large, Blue"],
        ["price!", "number", "Price"],
        ["sku", "string", "SKU"],
      ],
      verbs: ["list", "get", "create", "update", "delete"],
    },
  ],
  products: [
    { key: "shopify", label: "Shopify", style: "snake" },
    { key: "woocommerce", label: "WooCommerce", style: "snake", rename: { "discount code": "coupon" } },
    { key: "bigcommerce", label: "BigCommerce", style: "camel" },
    { key: "magento", label: "Magento", style: "camel", without: ["review"] },
    { key: "amazon seller", label: "Amazon Seller Central", style: "pascal", rename: { product: "listing" } },
    {
      key: "etsy",
      label: "Etsy",
      style: "kebab",
      rename: { product: "listing" },
      without: ["inventory level", "return"],
    },
    { key: "squarespace commerce", label: "Squarespace Commerce", style: "camel", without: ["gift card"] },
    { key: "commercetools", label: "commercetools", style: "dot", without: ["review", "abandoned checkout"] },
  ],
};
