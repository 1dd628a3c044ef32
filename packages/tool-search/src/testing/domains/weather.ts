import type { CategorySpec, FieldTuple } from "../catalog-spec.js";

const PLACE: readonly FieldTuple[] = [
  ["location!", "string", "City name, postal code or latitude,longitude"],
  ["units", "enum:metric|imperial", "Units of the values"],
];

/** Weather. */
export const WEATHER: CategorySpec = {
  category: "weather",
  entities: [
    {
      noun: "weather",
      plural: "weather",
      gloss: "Weather data from {product}.",
      fields: [],
      verbs: [],
      custom: [
        {
          verb: "get current",
          name: "get current weather",
          onItem: false,
          readOnly: true,
          description:
            "Returns the current conditions at a place: temperature, feels-like, wind, humidity, clouds.",
          args: PLACE,
        },
        {
          verb: "get forecast",
          name: "get forecast",
          onItem: false,
          readOnly: true,
          description:
            "Returns the daily forecast at a place for the next days: highs, lows, rain chance, wind.",
          args: [...PLACE, ["days", "integer", "Number of days, 1 to 14"]],
        },
        {
          verb: "get hourly forecast",
          name: "get hourly forecast",
          onItem: false,
          readOnly: true,
          description: "Returns an hour-by-hour forecast at a place for the next 48 hours.",
          args: PLACE,
        },
        {
          verb: "get alerts",
          name: "get weather alerts",
          onItem: false,
          readOnly: true,
          description: "Returns active severe weather warnings (storms, floods, heat) issued for an area.",
          args: PLACE,
        },
        {
          verb: "get historical",
          name: "get historical weather",
          onItem: false,
          readOnly: true,
          description: "Returns observed weather at a place on a past date.",
          args: [...PLACE, ["date!", "date", "The past date"]],
        },
        {
          verb: "get air quality",
          name: "get air quality",
          onItem: false,
          readOnly: true,
          description: "Returns the air quality index and pollutant levels (PM2.5, ozone) at a place.",
          args: PLACE,
        },
      ],
    },
    {
      noun: "astronomy",
      plural: "astronomy",
      gloss: "Sun and moon data from {product}.",
      fields: [],
      verbs: [],
      custom: [
        {
          verb: "get sun times",
          name: "get sunrise sunset",
          onItem: false,
          readOnly: true,
          description: "Returns sunrise, sunset, twilight and day length at a place on a date.",
          args: [...PLACE, ["date", "date", "Date; today when absent"]],
        },
        {
          verb: "get moon phase",
          name: "get moon phase",
          onItem: false,
          readOnly: true,
          description: "Returns the phase and illumination of the moon on a date.",
          args: [["date", "date", "Date"]],
        },
      ],
    },
    {
      noun: "uv index",
      plural: "uv index",
      gloss: "Sun exposure data from {product}.",
      fields: [],
      verbs: [],
      custom: [
        {
          verb: "get uv index",
          name: "get uv index",
          onItem: false,
          readOnly: true,
          description: "Returns the ultraviolet (UV) index forecast at a place, to judge sunburn risk.",
          args: PLACE,
        },
        {
          verb: "get pollen",
          name: "get pollen forecast",
          onItem: false,
          readOnly: true,
          description: "Returns pollen levels (grass, tree, weed) at a place for allergy sufferers.",
          args: PLACE,
        },
        {
          verb: "get marine",
          name: "get marine forecast",
          onItem: false,
          readOnly: true,
          description: "Returns wave height, swell, sea temperature and tides at a coastal place.",
          args: PLACE,
        },
      ],
    },
  ],
  products: [
    { key: "openweather", label: "OpenWeather", style: "snake" },
    { key: "weatherapi", label: "WeatherAPI", style: "camel" },
    { key: "met norway", label: "MET Norway", style: "snake" },
    { key: "tomorrow io", label: "Tomorrow.io", style: "kebab" },
    { key: "noaa", label: "NOAA", style: "snake" },
    { key: "visual crossing", label: "Visual Crossing", style: "camel" },
  ],
};
