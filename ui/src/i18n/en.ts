/**
 * English is the reference dictionary: its keys are the keys of every language,
 * and its `{placeholders}` are the parameters `t` requires.
 */
export const en = {
  "app.name": "smsdesk",
  "app.tagline": "SMS dispatch and delivery receipts",

  "about.title": "About this instance",
  "about.intro": "The engine this screen is connected to, and where it keeps its data.",
  "about.version": "Version",
  "about.mode": "Mode",
  "about.dataDir": "Data folder",
  "about.databasePath": "Database file",
  "about.configPath": "Configuration file",
  "about.schemaVersion": "Database schema version",
  "about.httpUrl": "HTTP address",
  "about.httpUrl.none": "HTTP server not running",
  "about.httpUrl.open": "Open {url} in a browser",
  "about.startedAt": "Started",

  "mode.window": "Desktop window",
  "mode.serve": "Headless server",

  "state.loading": "Loading instance details…",

  "error.title": "Could not load instance details",
  "error.unreachable": "The smsdesk engine did not answer. Check that it is running, then retry.",
  "error.badResponse": "The engine answered in a way this screen does not understand. The interface and the engine may be different versions.",
  "error.generic": "The engine reported an error.",
  "error.code": "Code",
  "error.details": "Details",

  "action.retry": "Retry",
} as const;

export type MessageKey = keyof typeof en;
export type Dictionary = { readonly [K in MessageKey]: string };
