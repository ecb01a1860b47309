/** Setup's country, numbers as people type them, the pace, dates and form checks. English is the reference. */
export const dayEn = {
  // The office's country, asked at setup and in the connect guide.
  "country.label": "Office country",
  "country.hint": "Numbers written without their country code (such as {example}) are read as numbers of this country, everywhere a number is typed.",
  "country.hint.none": "Numbers written without their country code are read as numbers of this country, everywhere a number is typed.",
  "country.none": "None: every number must be written with its country code",
  "connect.step.country": "The office’s country",
  "connect.step.country.intro": "People type numbers the way they say them (06 12 34 56 00): choose the country those numbers are in. The switch saves it with the provider’s details.",
  "fieldError.unknown_country.country": "This is not a country the phone numbering data knows: choose one from the list.",

  // Numbers as people type them: examples in the office's country.
  "number.hint.example": "As you write it ({national}) or with its country code ({international}).",
  "number.filter.hint.example":
    "As you write it ({national}, {international}), its last digits (at least 4: {ending}), or its beginning and * ({beginning}).",
  "number.inbox.hint.example": "Digits of a number (such as {national}) or words of a reply.",
  "number.problem.title": "This number cannot be searched",

  // Templates in a free text.
  "send.unfilled.title": "The text still holds {names}",
  "send.unfilled.body":
    "These are placeholders of the template “{template}”: sent as it is, the message shows them as written. Use the template and give their values, or send the text as it is.",
  "send.unfilled.useTemplate": "Use the template",
  "send.unfilled.sendAnyway": "Send as written",

  // The pace: what is due now, and what is scheduled apart.
  "pace.due": "{count} due now",
  "pace.scheduled.one": "{count} scheduled, next at {time}",
  "pace.scheduled.few": "{count} scheduled, next at {time}",
  "pace.scheduled.many": "{count} scheduled, next at {time}",
  "pace.scheduled.other": "{count} scheduled, next at {time}",
  "pace.idle.due": "Nothing due now · at most {rate}/s ({limit})",

  // The app's own date and time field.
  "date.part.day": "dd",
  "date.part.month": "mm",
  "date.part.year": "yyyy",
  "date.part.hour": "hh",
  "date.part.minute": "mm",
  "date.invalid": "This cannot be read as a date: write it as {pattern}.",
  "fieldError.invalid_time.typed": "This cannot be read as a date: write it as {pattern}.",
  "date.zone": "In your time zone ({zone}).",

  // Form checks made by the app.
  "form.required": "Fill in this field.",

  // How many rows a list shows.
  "list.shown.one": "Showing {count}.",
  "list.shown.few": "Showing {count}.",
  "list.shown.many": "Showing {count}.",
  "list.shown.other": "Showing {count}.",

  // An import done, and the way to its messages.
  "import.done.one": "{count} message queued.",
  "import.done.few": "{count} messages queued.",
  "import.done.many": "{count} messages queued.",
  "import.done.other": "{count} messages queued.",
  "import.done.show": "Show them in the list",
  "filters.imported": "Only the messages of the import made {from} – {to}.",
  "filters.imported.clear": "Show all messages",

  // Errors said once.
  "error.technical": "Technical details",
} as const;
