/** Reports, and the message list narrowed from one of their figures. English is the reference. */
export const reportsEn = {
  "nav.reports": "Reports",
  "notForYou.reports": "Reports count every message: they are for people who may read everything. Ask an admin if you need them.",

  "reports.title": "Reports",
  "reports.intro":
    "How messages fared over a period, group by group, against the period just before. Every figure opens the messages it counts.",

  // The period, in the office's time (the browser's), whole days.
  "reports.period": "Period",
  "reports.period.today": "Today",
  "reports.period.yesterday": "Yesterday",
  "reports.period.7d": "Last 7 days",
  "reports.period.30d": "Last 30 days",
  "reports.period.month": "This month",
  "reports.period.range": "Chosen days",
  "reports.range.from": "First day",
  "reports.range.to": "Last day (included)",
  "reports.range.apply": "Show",
  "reports.range.invalid": "Write a first and a last day, the first not after the last.",
  "reports.shown": "From {from} to {to}, compared with {previousFrom} to {previousTo}.",

  // The breakdown.
  "reports.by": "Break down by",
  "reports.by.second": "Then by",
  "reports.by.none": "Nothing: all messages together",
  "reports.by.second.none": "Nothing more",
  "reports.dimension.kind": "Kind",
  "reports.dimension.connection": "Connection",
  "reports.dimension.route": "Route",
  "reports.dimension.country": "Country",
  "reports.dimension.sender": "Sender",
  "reports.dimension.outcome": "Outcome",
  "reports.dimension.command_status": "SMSC answer",
  "reports.dimension.error_code": "Receipt error",
  "reports.dimension.all": "Messages",

  // A group's value when it has none.
  "reports.none.kind": "No kind",
  "reports.none.connection": "Never tried on a connection",
  "reports.none.route": "No route",
  "reports.none.country": "Country unknown",
  "reports.none.sender": "Sender unknown",
  "reports.none.outcome": "No outcome",
  "reports.none.command_status": "No SMSC answer",
  "reports.none.error_code": "No receipt error",

  // What became of a message: exactly one of these.
  "reports.outcome.delivered": "Delivered",
  "reports.outcome.failed": "Failed",
  "reports.outcome.expired": "Expired",
  "reports.outcome.cancelled": "Cancelled",
  "reports.outcome.no_receipt": "No receipt",
  "reports.outcome.unknown": "Outcome unknown",
  "reports.outcome.pending": "Still under way",

  // Who handed messages in.
  "reports.sender.csv": "CSV import",
  "reports.sender.cli": "Command line",
  "reports.sender.key": "API key {id}",

  // States of the screen.
  "reports.loading": "Counting…",
  "reports.error": "The report could not be made",
  "reports.empty": "No messages in this period.",
  "reports.empty.hint": "Choose a longer period, or one when messages were sent.",

  // The table.
  "reports.caption": "Delivery by {by}, from {from} to {to}, compared with the period before",
  "reports.col.messages": "Messages",
  "reports.col.parts": "Parts",
  "reports.col.delivered": "Delivered",
  "reports.col.failed": "Failed or expired",
  "reports.col.noReceipt": "No receipt",
  "reports.col.p50": "Receipt, median",
  "reports.col.p95": "Receipt, 95 %",
  "reports.total": "All messages",
  "reports.change": "Against the period before: {change}",
  "reports.change.new": "new",
  "reports.change.pts": "{value} pts",
  "reports.latency.atMost": "≤ {value}",
  "reports.open.messages": "Open these {count} messages",
  "reports.open.outcome": "Open the messages counted here ({count})",

  // The chart.
  "reports.chart.title.delivered": "Delivered over time",
  "reports.chart.title.messages": "Messages over time",
  "reports.chart.metric": "Chart",
  "reports.chart.metric.delivered": "Delivered %",
  "reports.chart.metric.messages": "Messages",
  "reports.chart.summary.delivered.hour": "The share of messages delivered, hour by hour, for: {groups}.",
  "reports.chart.summary.delivered.day": "The share of messages delivered, day by day, for: {groups}.",
  "reports.chart.summary.messages.hour": "Messages, hour by hour, for: {groups}.",
  "reports.chart.summary.messages.day": "Messages, day by day, for: {groups}.",
  "reports.chart.top": "The {count} groups with the most messages.",
  "reports.chart.empty": "No message to chart in this period.",
  "reports.chart.time": "Hour",
  "reports.chart.day": "Day",

  // The CSV file.
  "reports.csv": "Download CSV",
  "reports.csv.error": "The CSV file could not be saved",
  "reports.csv.saved": "CSV file saved.",
  "reports.csv.change.percent": "{name}: change (%)",
  "reports.csv.change.pts": "{name}: change (pts)",
  "reports.csv.percent": "{name} (%)",
  "reports.csv.ms": "{name} (ms)",

  // The message list narrowed from a report.
  "narrowing.label": "Narrowed to what a report counted",
  "narrowing.chip": "{name}: {value}",
  "narrowing.period": "Created from {from} until {to}",
  "narrowing.remove": "Remove the filter “{filter}”",
} as const;
