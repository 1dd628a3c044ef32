import type { CategorySpec } from "../catalog-spec.js";

/** Travel booking. */
export const TRAVEL: CategorySpec = {
  category: "travel",
  entities: [
    {
      noun: "flight",
      gloss: "A {noun} offer with airline, times, stops and price.",
      fields: [],
      verbs: [],
      custom: [
        {
          verb: "search flights",
          name: "search flights",
          onItem: false,
          readOnly: true,
          description: "Finds flights between two airports on given dates, with prices.",
          args: [
            ["origin!", "string", "Airport code, e.g. OSL"],
            ["destination!", "string", "Airport code"],
            ["depart_date!", "date", "Outbound date"],
            ["return_date", "date", "Return date"],
            ["adults", "integer", "Passengers"],
          ],
        },
        {
          verb: "get flight status",
          name: "get flight status",
          onItem: false,
          readOnly: true,
          description: "Returns whether a flight is on time, delayed or cancelled, with gate and terminal.",
          args: [
            ["flight_number!", "string", "e.g. SK4035"],
            ["date!", "date", "Date"],
          ],
        },
      ],
    },
    {
      noun: "hotel",
      gloss: "A {noun} with rooms, rates and reviews.",
      fields: [],
      verbs: [],
      custom: [
        {
          verb: "search hotels",
          name: "search hotels",
          onItem: false,
          readOnly: true,
          description: "Finds hotels with free rooms in a city for given dates, with prices.",
          args: [
            ["city!", "string", "City"],
            ["check_in!", "date", "Arrival"],
            ["check_out!", "date", "Departure"],
            ["guests", "integer", "Guests"],
          ],
        },
      ],
    },
    {
      noun: "booking",
      gloss: "A travel {noun} (reservation) with its confirmation number.",
      fields: [
        ["offer_id!", "string", "Flight or hotel offer to book"],
        ["travelers!", "object", "Traveler names and documents"],
      ],
      verbs: ["get", "create"],
      custom: [{ verb: "cancel", name: "cancel booking", description: "Cancels a {product} {noun}." }],
    },
    {
      noun: "airport",
      gloss: "An {noun} with its code, city and country.",
      fields: [],
      verbs: [],
      custom: [
        {
          verb: "search airports",
          name: "search airports",
          onItem: false,
          readOnly: true,
          description: "Finds airports and their IATA codes by city or name.",
          args: [["keyword!", "string", "City or name"]],
        },
      ],
    },
    {
      noun: "car rental",
      gloss: "A rental {noun} offer.",
      fields: [],
      verbs: [],
      custom: [
        {
          verb: "search car rentals",
          name: "search car rentals",
          onItem: false,
          readOnly: true,
          description: "Finds rental cars at a pickup location for given dates, with prices.",
          args: [
            ["pickup_location!", "string", "Where"],
            ["pickup_date!", "date-time", "From"],
            ["dropoff_date!", "date-time", "Until"],
          ],
        },
      ],
    },
    {
      noun: "price alert",
      gloss: "A {noun} tells you when a fare drops.",
      fields: [
        ["route!", "string", "e.g. OSL-LHR"],
        ["max_price!", "number", "Notify below"],
      ],
      verbs: ["list", "create", "delete"],
    },
  ],
  products: [
    { key: "amadeus", label: "Amadeus", style: "snake" },
    { key: "skyscanner", label: "Skyscanner", style: "camel", without: ["booking", "hotel"] },
    { key: "booking com", label: "Booking.com", style: "snake", without: ["flight"] },
    { key: "expedia", label: "Expedia", style: "camel" },
    { key: "kiwi", label: "Kiwi.com", style: "snake", without: ["hotel", "car rental"] },
  ],
};
