/**
 * The fixed queries of the search quality test over the generated 10,000-tool catalog, each with the tool it
 * should find. Written before the search was implemented, as an agent phrases a need (paraphrase and synonyms,
 * not the tool's own name or description), and kept unchanged since: when the search misses one, the ranking
 * is what gets tuned, never this list.
 */
export interface QualityQuery {
  /** What the agent asks for. */
  query: string;
  /** The tool that answers it, as the generated catalog names it. */
  tool: string;
}

export const QUALITY_QUERIES: readonly QualityQuery[] = [
  // code hosting and CI
  {
    query: "file a bug report on our GitHub repo saying the login page crashes",
    tool: "github_create_issue",
  },
  { query: "squash and land the approved PR on GitHub", tool: "github_merge_pull_request" },
  { query: "find where parseConfig is defined across our GitHub repos", tool: "github_search_code" },
  { query: "open an MR on GitLab from feature/login into main", tool: "gitlab_create_merge_request" },
  {
    query: "notify our server URL whenever someone pushes to the GitHub repository",
    tool: "github_create_webhook",
  },
  { query: "show recent CI runs of the repo on GitHub Actions", tool: "github_list_workflow_runs" },
  { query: "kick off a fresh CircleCI build of the main branch", tool: "circleci_trigger_pipeline" },
  { query: "why did Jenkins build 312 fail? show me what it printed", tool: "jenkins_get_build_log" },
  // issue trackers
  { query: "move ticket ENG-42 to Done in Jira", tool: "jira_transition_issue" },
  { query: "create a Linear ticket about the flaky checkout test", tool: "linearCreateIssue" },
  { query: "add a to-do in Asana for Maria to review the contract", tool: "asana_create_task" },
  { query: "put a new card on our Trello board for the launch checklist", tool: "trelloCreateCard" },
  // monitoring and incidents
  { query: "ack the PagerDuty page so it stops escalating", tool: "pagerduty_acknowledge_incident" },
  { query: "find error lines from the checkout service in Datadog logs", tool: "datadog_search_logs" },
  {
    query: "show me what the last crash looked like in Sentry, with the call stack",
    tool: "sentry_get_error_latest_event",
  },
  { query: "mark this Sentry crash as fixed", tool: "sentry_resolve_error" },
  { query: "acknowledge the Opsgenie alert that woke me up", tool: "opsgenieAcknowledgeAlert" },
  { query: "page me in Grafana when p99 latency goes above 2 seconds", tool: "grafana-create-alert-rule" },
  // databases
  { query: "run SELECT count(*) FROM orders on our Postgres db", tool: "postgres_run_query" },
  { query: "which statements have been slowest on Postgres lately", tool: "postgres_list_slow_queries" },
  { query: "what fields are in the users table schema on MySQL", tool: "mysql_describe_table" },
  {
    query: "look up MongoDB records in the orders collection whose status is pending",
    tool: "mongodbFindDocuments",
  },
  { query: "cache this value in Redis for ten minutes", tool: "redis_set_key" },
  { query: "compute last month's revenue with SQL in BigQuery", tool: "bigqueryRunQuery" },
  // cloud and kubernetes
  { query: "power down the Compute Engine VM overnight to save money", tool: "gcpComputeStopInstance" },
  { query: "spin up a new DigitalOcean server for staging", tool: "digitalocean_create_droplet" },
  { query: "call the resize-image Lambda with this JSON payload", tool: "aws_lambda_invoke_function" },
  {
    query: "why does the api pod keep crashing in kubernetes, I need its container output",
    tool: "k8s_get_pod_logs",
  },
  { query: "bump the web deployment in k8s to 5 replicas", tool: "k8s_scale_deployment" },
  {
    query: "revert the web deployment to its previous version in Kubernetes",
    tool: "k8s_rollback_deployment",
  },
  {
    query: "empty a kubernetes worker machine of all its workloads so we can patch it",
    tool: "k8s_drain_node",
  },
  // network and identity
  { query: "clear Cloudflare's CDN cache after the deploy", tool: "cloudflare_purge_cache" },
  {
    query: "point blog.example.com at our host with a CNAME in Cloudflare",
    tool: "cloudflare_create_dns_record",
  },
  { query: "block traffic from one country at Cloudflare's firewall", tool: "cloudflare_create_waf_rule" },
  {
    query: "a user lost their phone and can't approve logins, clear their 2-step setup in Okta",
    tool: "okta_reset_user_mfa",
  },
  { query: "stop an employee from logging in through Okta", tool: "okta_suspend_user" },
  {
    query: "send Bob a password reset for his Google Workspace account",
    tool: "google_workspace_reset_user_password",
  },
  { query: "read the database password kept in HashiCorp Vault", tool: "vault_get_secret" },
  // files and documents
  { query: "give bob@example.com edit access to the doc in Google Drive", tool: "google_drive_share_file" },
  { query: "bring back a file I deleted from Dropbox by accident", tool: "dropbox_restore_trashed_file" },
  {
    query: "write a new Confluence wiki page documenting the release process",
    tool: "confluence_create_page",
  },
  { query: "get the rows of my Notion table where Status is Done", tool: "notion_query_database" },
  // chat, email, calendar, meetings
  { query: "post an update in the #deploys Slack channel", tool: "slack_send_message" },
  { query: "who deleted the channel? check Slack's audit trail", tool: "slack_search_audit_log_entries" },
  { query: "send a note to the engineering channel in Microsoft Teams", tool: "teams.messages.send" },
  { query: "make that Discord message stick to the top of the channel", tool: "discordPinMessage" },
  { query: "email the quarterly report to finance from my Gmail", tool: "gmail_send_email" },
  { query: "answer the landlord's email in Outlook", tool: "outlookReplyToEmail" },
  {
    query: "blast the monthly newsletter out to everyone on our Mailchimp list",
    tool: "mailchimp_send_campaign",
  },
  {
    query: "book a meeting on my Google Calendar tomorrow at 3pm with Anna",
    tool: "google_calendar_create_event",
  },
  {
    query: "when are Alice, Bob and I all free next week for an hour in Google Calendar",
    tool: "google_calendar_find_meeting_times",
  },
  {
    query: "make a Calendly booking link for a 30-minute intro call",
    tool: "calendly_create_scheduling_link",
  },
  { query: "set up a Zoom call with a join link for Thursday 10am", tool: "zoom_create_meeting" },
  {
    query: "what was said in yesterday's recorded Zoom call, as text",
    tool: "zoom_get_recording_transcript",
  },
  // sales and support
  { query: "open a new sales opportunity in HubSpot for Acme worth 50k", tool: "hubspot_create_deal" },
  {
    query: "this prospect is sales-ready, promote them to a customer record in Salesforce",
    tool: "salesforceConvertLead",
  },
  {
    query: "start sending this contact our automated outreach emails in HubSpot",
    tool: "hubspot_enroll_in_sequence",
  },
  {
    query: "leave a comment on the Zendesk ticket that the customer won't see",
    tool: "zendesk_add_internal_note",
  },
  {
    query: "the same customer opened three Zendesk tickets about one problem, fold them together",
    tool: "zendesk_merge_tickets",
  },
  { query: "answer the customer's Intercom conversation", tool: "intercomReplyToConversation" },
  // people and messaging
  { query: "how much PTO does employee 123 still have in BambooHR", tool: "bamboohr_get_time_off_balance" },
  {
    query: "set up an onsite interview with the applicant in Greenhouse",
    tool: "greenhouse_schedule_interview",
  },
  { query: "submit this month's payroll in Gusto", tool: "gusto_submit_payroll_run" },
  { query: "text a delivery reminder to a mobile number via Twilio", tool: "twilio_send_sms" },
  {
    query: "send a 2FA code by SMS with Twilio to check a signup's phone number",
    tool: "twilio_start_verification",
  },
  { query: "post on X announcing the launch", tool: "twitter_create_tweet" },
  { query: "download the subtitle track of a YouTube clip", tool: "youtube_get_video_captions" },
  // money and commerce
  { query: "give the customer their money back for a Stripe charge", tool: "stripe_create_refund" },
  {
    query: "stop billing this Stripe customer every month, end their plan when the period is over",
    tool: "stripe_cancel_subscription",
  },
  {
    query: "make a shareable Stripe URL where people can pay for the workshop",
    tool: "stripe_create_payment_link",
  },
  {
    query: "fight a chargeback on Square by sending proof of delivery",
    tool: "square_submit_dispute_evidence",
  },
  {
    query: "the package went out today, update the Shopify purchase with the carrier's tracking code",
    tool: "shopify_fulfill_order",
  },
  {
    query: "we received 20 more units, increase the stock count in Shopify",
    tool: "shopify_adjust_inventory",
  },
  {
    query: "show last quarter's earnings report (revenue, costs, net) from QuickBooks",
    tool: "quickbooks_get_profit_and_loss",
  },
  {
    query: "tick off this deposit in Xero against the invoice it paid",
    tool: "xeroReconcileBankTransaction",
  },
  { query: "where is my FedEx package right now", tool: "fedex_track_shipment" },
  {
    query: "how much would UPS charge to send a 2 kg box from 10001 to 94105",
    tool: "ups_get_shipping_rates",
  },
  { query: "purchase a label for this parcel through Shippo", tool: "shippo_buy_shipping_label" },
  { query: "record in Mixpanel that user 42 completed signup", tool: "mixpanel_track_event" },
  {
    query: "how many visitors are on the website at this moment according to Google Analytics",
    tool: "google_analytics_get_realtime_users",
  },
  { query: "stop spending on the summer Google Ads campaign", tool: "google_ads_pause_ad_campaign" },
  { query: "what is Apple's share price right now on Alpha Vantage", tool: "alpha_vantage_get_stock_quote" },
  { query: "how many Norwegian kroner is 250 US dollars, using Finnhub", tool: "finnhubConvertCurrency" },
  {
    query: "show my recent card purchases from the bank accounts linked through Plaid",
    tool: "plaid_list_transactions",
  },
  // everyday
  {
    query: "what will the weather be like in Oslo over the next five days according to OpenWeather",
    tool: "openweather_get_forecast",
  },
  { query: "is the air polluted in Delhi today? use OpenWeather", tool: "openweather_get_air_quality" },
  { query: "any storm warnings for Bergen from MET Norway", tool: "met_norway_get_weather_alerts" },
  {
    query: "driving route from Oslo airport to the city centre with Google Maps",
    tool: "google_maps_get_directions",
  },
  { query: "translate this paragraph into German with DeepL", tool: "deepl_translate_text" },
  {
    query: "turn this podcast recording into text with speaker labels using AssemblyAI",
    tool: "assemblyai_transcribe_audio",
  },
  {
    query: "read the words off this scanned receipt photo with Textract",
    tool: "aws_textract_extract_text_from_image",
  },
  { query: "find flights from Oslo to London next Friday on Amadeus", tool: "amadeus_search_flights" },
  {
    query: "make the house warmer, heat to 22 degrees in Home Assistant",
    tool: "home_assistant_set_thermostat_temperature",
  },
  { query: "switch off the Philips Hue lamp in the living room", tool: "hue_turn_off_light" },
  { query: "next song on Spotify please", tool: "spotify_skip_to_next_track" },
  { query: "put these three songs on my Spotify road trip playlist", tool: "spotify_add_tracks_to_playlist" },
  { query: "add a line at the bottom of the expenses Google Sheet", tool: "google_sheets_append_row" },
  {
    query: "give me a short overview of the Wikipedia page on Alan Turing",
    tool: "wikipedia_get_article_summary",
  },
  {
    query: "what's in the business press this morning according to NewsAPI",
    tool: "newsapi_get_top_headlines",
  },
];
