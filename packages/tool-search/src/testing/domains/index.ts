import type { CategorySpec } from "../catalog-spec.js";
import { ACCOUNTING } from "./accounting.js";
import { ADVERTISING } from "./advertising.js";
import { ANALYTICS } from "./analytics.js";
import { BANKING } from "./banking.js";
import { CALENDAR } from "./calendar.js";
import { CHAT } from "./chat.js";
import { CLOUD_COMPUTE } from "./cloud-compute.js";
import { CODE_HOSTING } from "./code-hosting.js";
import { CONTINUOUS_INTEGRATION } from "./continuous-integration.js";
import { CRM } from "./crm.js";
import { DATABASES } from "./databases.js";
import { DOCUMENTS } from "./documents.js";
import { ECOMMERCE } from "./ecommerce.js";
import { EMAIL } from "./email.js";
import { EMAIL_MARKETING } from "./email-marketing.js";
import { FILES } from "./files.js";
import { FINANCE } from "./finance.js";
import { IDENTITY } from "./identity.js";
import { ISSUE_TRACKING } from "./issue-tracking.js";
import { KNOWLEDGE } from "./knowledge.js";
import { KUBERNETES } from "./kubernetes.js";
import { LANGUAGE } from "./language.js";
import { MAPS } from "./maps.js";
import { MEDIA_AI } from "./media-ai.js";
import { MONITORING } from "./monitoring.js";
import { MUSIC } from "./music.js";
import { NETWORK_EDGE } from "./network-edge.js";
import { PAYMENTS } from "./payments.js";
import { PEOPLE_OPS } from "./people-ops.js";
import { SHIPPING } from "./shipping.js";
import { SMART_HOME } from "./smart-home.js";
import { SOCIAL } from "./social.js";
import { SPREADSHEETS } from "./spreadsheets.js";
import { SUPPORT } from "./support.js";
import { TELEPHONY } from "./telephony.js";
import { TRAVEL } from "./travel.js";
import { VIDEO_MEETINGS } from "./video-meetings.js";
import { WEATHER } from "./weather.js";

/** Every category of the generated catalog, in the catalog's order. */
export const CATEGORIES: readonly CategorySpec[] = [
  CODE_HOSTING,
  ISSUE_TRACKING,
  CONTINUOUS_INTEGRATION,
  MONITORING,
  DOCUMENTS,
  DATABASES,
  CLOUD_COMPUTE,
  KUBERNETES,
  FILES,
  NETWORK_EDGE,
  IDENTITY,
  CHAT,
  EMAIL,
  EMAIL_MARKETING,
  CALENDAR,
  VIDEO_MEETINGS,
  CRM,
  SUPPORT,
  PEOPLE_OPS,
  TELEPHONY,
  SOCIAL,
  PAYMENTS,
  ECOMMERCE,
  ACCOUNTING,
  SHIPPING,
  ANALYTICS,
  ADVERTISING,
  WEATHER,
  MAPS,
  LANGUAGE,
  MEDIA_AI,
  FINANCE,
  BANKING,
  TRAVEL,
  SMART_HOME,
  MUSIC,
  SPREADSHEETS,
  KNOWLEDGE,
];
