import type { dayEn } from "./en";

export const dayFr: { readonly [K in keyof typeof dayEn]: string } = {
  "country.label": "Pays du cabinet",
  "country.hint": "Les numéros écrits sans indicatif de pays (comme {example}) sont lus comme des numéros de ce pays, partout où l’on saisit un numéro.",
  "country.hint.none": "Les numéros écrits sans indicatif de pays sont lus comme des numéros de ce pays, partout où l’on saisit un numéro.",
  "country.none": "Aucun : chaque numéro doit être écrit avec son indicatif de pays",
  "connect.step.country": "Le pays du cabinet",
  "connect.step.country.intro": "On tape les numéros comme on les dit (06 12 34 56 00) : choisissez le pays de ces numéros. La bascule l’enregistre avec les coordonnées du fournisseur.",
  "fieldError.unknown_country.country": "Les données de numérotation ne connaissent pas ce pays : choisissez-en un dans la liste.",

  "number.hint.example": "Tel que vous l’écrivez ({national}) ou avec son indicatif ({international}).",
  "number.filter.hint.example":
    "Tel que vous l’écrivez ({national}, {international}), ses derniers chiffres (au moins 4 : {ending}), ou son début suivi de * ({beginning}).",
  "number.inbox.hint.example": "Des chiffres d’un numéro (comme {national}) ou des mots d’une réponse.",
  "number.problem.title": "Ce numéro ne peut pas être cherché",

  "send.unfilled.title": "Le texte contient encore {names}",
  "send.unfilled.body":
    "Ce sont des champs à remplir du modèle « {template} » : envoyé tel quel, le message les montre tels qu’ils sont écrits. Utilisez le modèle et donnez leurs valeurs, ou envoyez le texte tel quel.",
  "send.unfilled.useTemplate": "Utiliser le modèle",
  "send.unfilled.sendAnyway": "Envoyer tel quel",

  "pace.due": "{count} à envoyer maintenant",
  "pace.scheduled.one": "{count} programmé, le prochain le {time}",
  "pace.scheduled.few": "{count} programmés, le prochain le {time}",
  "pace.scheduled.many": "{count} programmés, le prochain le {time}",
  "pace.scheduled.other": "{count} programmés, le prochain le {time}",
  "pace.idle.due": "Rien à envoyer maintenant · au plus {rate}/s ({limit})",

  "date.part.day": "jj",
  "date.part.month": "mm",
  "date.part.year": "aaaa",
  "date.part.hour": "hh",
  "date.part.minute": "mm",
  "date.invalid": "Ceci ne se lit pas comme une date : écrivez-la sous la forme {pattern}.",
  "fieldError.invalid_time.typed": "Ceci ne se lit pas comme une date : écrivez-la sous la forme {pattern}.",
  "date.zone": "Dans votre fuseau horaire ({zone}).",

  "form.required": "Remplissez ce champ.",

  "list.shown.one": "{count} affiché.",
  "list.shown.few": "{count} affichés.",
  "list.shown.many": "{count} affichés.",
  "list.shown.other": "{count} affichés.",

  "import.done.one": "{count} message mis en file d’attente.",
  "import.done.few": "{count} messages mis en file d’attente.",
  "import.done.many": "{count} messages mis en file d’attente.",
  "import.done.other": "{count} messages mis en file d’attente.",
  "import.done.show": "Les voir dans la liste",
  "filters.imported": "Seulement les messages de l’import fait entre {from} et {to}.",
  "filters.imported.clear": "Voir tous les messages",

  "error.technical": "Détails techniques",
};
