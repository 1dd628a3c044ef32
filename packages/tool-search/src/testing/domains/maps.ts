import type { CategorySpec } from "../catalog-spec.js";

/** Maps and places. */
export const MAPS: CategorySpec = {
  category: "maps",
  entities: [
    {
      noun: "location",
      gloss: "Geographic data from {product}.",
      fields: [],
      verbs: [],
      custom: [
        {
          verb: "geocode",
          name: "geocode address",
          onItem: false,
          readOnly: true,
          description: "Turns a street address into latitude and longitude coordinates.",
          args: [["address!", "string", "The address"]],
        },
        {
          verb: "reverse geocode",
          name: "reverse geocode",
          onItem: false,
          readOnly: true,
          description: "Turns coordinates into the nearest street address.",
          args: [
            ["lat!", "number", "Latitude"],
            ["lng!", "number", "Longitude"],
          ],
        },
        {
          verb: "get directions",
          name: "get directions",
          onItem: false,
          readOnly: true,
          description:
            "Returns a route between two places, with distance, travel time and turn-by-turn steps.",
          args: [
            ["origin!", "string", "Start"],
            ["destination!", "string", "End"],
            ["mode", "enum:driving|walking|bicycling|transit", "How to travel"],
          ],
        },
        {
          verb: "search places",
          name: "search places",
          onItem: false,
          readOnly: true,
          description: "Finds places (restaurants, shops, landmarks) matching a text query near a location.",
          args: [
            ["query!", "string", "What to look for"],
            ["near", "string", "Around this place"],
            ["radius_m", "integer", "Search radius in metres"],
          ],
        },
        {
          verb: "get distance matrix",
          name: "get distance matrix",
          onItem: false,
          readOnly: true,
          description: "Returns travel distances and times between many origins and destinations.",
          args: [
            ["origins!", "string[]", "Origins"],
            ["destinations!", "string[]", "Destinations"],
          ],
        },
        {
          verb: "get time zone",
          name: "get time zone",
          onItem: false,
          readOnly: true,
          description: "Returns the time zone and UTC offset at a latitude and longitude.",
          args: [
            ["lat!", "number", "Latitude"],
            ["lng!", "number", "Longitude"],
          ],
        },
      ],
    },
    {
      noun: "place",
      gloss: "A {noun} (business, point of interest) in {product}.",
      id: ["place_id", "string", "ID of the place"],
      fields: [],
      verbs: ["get"],
      custom: [
        {
          verb: "autocomplete",
          name: "autocomplete place",
          onItem: false,
          readOnly: true,
          description: "Suggests places and addresses as a user types.",
          args: [["input!", "string", "What was typed"]],
        },
        {
          verb: "get reviews",
          name: "get place reviews",
          readOnly: true,
          description: "Returns ratings and reviews of a {noun}.",
        },
        {
          verb: "get photos",
          name: "get place photos",
          readOnly: true,
          description: "Returns photos of a {noun}.",
        },
      ],
    },
    {
      noun: "elevation",
      plural: "elevation",
      gloss: "Height above sea level from {product}.",
      fields: [],
      verbs: [],
      custom: [
        {
          verb: "get elevation",
          name: "get elevation",
          onItem: false,
          readOnly: true,
          description: "Returns the elevation (altitude above sea level) of points on the earth.",
          args: [["locations!", "string[]", "lat,lng pairs"]],
        },
        {
          verb: "get static map",
          name: "get static map",
          onItem: false,
          readOnly: true,
          description: "Renders a map image (PNG) centred on a place, with optional markers.",
          args: [
            ["center!", "string", "Place or lat,lng"],
            ["zoom", "integer", "Zoom level"],
            ["markers", "string[]", "Markers"],
          ],
        },
        {
          verb: "get isochrone",
          name: "get isochrone",
          onItem: false,
          readOnly: true,
          description:
            "Returns the area reachable from a point within a travel time (e.g. 15 minutes by car).",
          args: [
            ["origin!", "string", "Start"],
            ["minutes!", "integer", "Travel time"],
            ["mode", "enum:driving|walking|cycling", "How"],
          ],
        },
      ],
    },
  ],
  products: [
    { key: "google maps", label: "Google Maps", style: "snake" },
    { key: "mapbox", label: "Mapbox", style: "camel" },
    { key: "here", label: "HERE", style: "snake" },
    { key: "osm", label: "OpenStreetMap", style: "kebab" },
    { key: "tomtom", label: "TomTom", style: "camel" },
  ],
};
