import type { QualityQuery } from "./search-quality-queries.js";

/**
 * A second set of queries, for other tools than the first set's, written after the ranking was tuned on
 * `QUALITY_QUERIES` and before the search ever ran on them: they measure how well that tuning carries over to
 * needs it was not tuned on. Kept unchanged, like the first set.
 */
export const HOLDOUT_QUERIES: readonly QualityQuery[] = [
  { query: "which files does MR 17 touch on GitLab", tool: "gitlab_list_merge_request_files" },
  { query: "cut a release/2.0 branch off main in Bitbucket", tool: "bitbucketCreateBranch" },
  { query: "publish v1.4.0 with release notes on GitHub", tool: "github_create_release" },
  {
    query: "store the NPM token as an encrypted Actions secret in our GitHub repo",
    tool: "github_set_repository_secret",
  },
  { query: "book 3 hours against ENG-7 in Jira", tool: "jira_log_work_on_issue" },
  { query: "add a task in ClickUp for the onboarding redesign", tool: "clickup-create-task" },
  {
    query: "silence Datadog alerts for the db hosts during tonight's maintenance",
    tool: "datadog_create_downtime",
  },
  { query: "who is on call right now in PagerDuty", tool: "pagerduty_get_current_on_call" },
  { query: "terminate the stuck Postgres session that is holding locks", tool: "postgres_kill_connection" },
  { query: "roll the MySQL database back to last night's snapshot", tool: "mysql_restore_backup" },
  { query: "take a point-in-time copy of the EC2 disk before upgrading", tool: "aws_ec2_create_snapshot" },
  { query: "do a rolling restart of the api deployment in Kubernetes", tool: "k8s_restart_deployment" },
  { query: "remove the redis Helm release from the cluster", tool: "k8s_uninstall_helm_release" },
  { query: "put this PDF into my Google Drive", tool: "google_drive_upload_file" },
  { query: "save the Confluence onboarding page as a PDF", tool: "confluence_export_page_as_pdf" },
  {
    query: "send visitors of /old-blog to /blog with a 301 on Cloudflare",
    tool: "cloudflare_create_redirect_rule",
  },
  { query: "put Jane in the Engineering group in Okta", tool: "okta_add_user_to_group" },
  { query: "our Auth0 API key leaked, replace it with a fresh one", tool: "auth0RotateApiKey" },
  { query: "set my Slack status to 'in a meeting' until 3pm", tool: "slack_set_status" },
  {
    query: "turn on my out-of-office auto reply in Gmail while I'm on holiday",
    tool: "gmail_update_vacation_responder",
  },
  { query: "write an email in Outlook but don't send it yet", tool: "outlookCreateDraft" },
  { query: "who attended yesterday's Zoom meeting and for how long", tool: "zoom_list_meeting_participants" },
  {
    query: "there are two records for the same person in HubSpot, combine them",
    tool: "hubspot_merge_contacts",
  },
  { query: "mark the Acme opportunity as closed won in Salesforce", tool: "salesforceMoveOpportunityStage" },
  { query: "use the refund canned response on this Zendesk ticket", tool: "zendesk_apply_macro" },
  { query: "offboard an employee whose last day is Friday in Workday", tool: "workdayTerminateEmployee" },
  { query: "turn down the applicant in Greenhouse and email them", tool: "greenhouse_reject_candidate" },
  { query: "get a new Twilio number with a 415 area code", tool: "twilio_buy_phone_number" },
  { query: "email the customer their Stripe bill", tool: "stripe_send_invoice" },
  { query: "temporarily stop charging a Stripe subscriber", tool: "stripe_pause_subscription" },
  { query: "make a SUMMER20 promo code for 20% off in Shopify", tool: "shopify_create_discount_code" },
  {
    query: "what are our assets and liabilities as of today in QuickBooks",
    tool: "quickbooks_get_balance_sheet",
  },
  { query: "check that this shipping address is deliverable with FedEx", tool: "fedex_validate_address" },
  { query: "have a DHL courier collect the parcel tomorrow", tool: "dhlSchedulePickup" },
  {
    query: "get latitude and longitude for 10 Downing Street with Google Maps",
    tool: "google_maps_geocode_address",
  },
  { query: "which language is this text written in? use DeepL", tool: "deepl_detect_language" },
  { query: "read this paragraph aloud as an mp3 with ElevenLabs", tool: "elevenlabs-synthesize-speech" },
  { query: "how much money is in my checking account via Plaid", tool: "plaid_get_account_balance" },
  { query: "what song is playing on my Spotify", tool: "spotify_get_currently_playing" },
  { query: "fetch cells A1 to C10 from the budget Google Sheet", tool: "google_sheets_read_range" },
  { query: "add a new record to the Airtable base", tool: "airtable_append_record" },
  { query: "lock the front door with Home Assistant", tool: "home_assistant_lock_door" },
  { query: "find recent arXiv papers about diffusion models", tool: "arxiv_search_papers" },
  { query: "how many users come back a week after signing up, in Mixpanel", tool: "mixpanel_get_retention" },
  { query: "how many people saw my latest Instagram post", tool: "instagram_get_post_analytics" },
];
