import type { Dictionary } from "./en";

export const fr: Dictionary = {
  "app.name": "smsdesk",
  "app.tagline": "Envoi de SMS et accusés de réception",

  "about.title": "À propos de cette instance",
  "about.intro": "Le moteur auquel cet écran est relié, et l’endroit où il conserve ses données.",
  "about.version": "Version",
  "about.mode": "Mode",
  "about.dataDir": "Dossier de données",
  "about.databasePath": "Fichier de base de données",
  "about.configPath": "Fichier de configuration",
  "about.schemaVersion": "Version du schéma de la base",
  "about.httpUrl": "Adresse HTTP",
  "about.httpUrl.none": "Serveur HTTP non démarré",
  "about.httpUrl.open": "Ouvrir {url} dans un navigateur",
  "about.startedAt": "Démarrée le",

  "mode.window": "Fenêtre de bureau",
  "mode.serve": "Serveur sans interface",

  "state.loading": "Chargement des informations de l’instance…",

  "error.title": "Impossible de charger les informations de l’instance",
  "error.unreachable": "Le moteur smsdesk n’a pas répondu. Vérifiez qu’il est en cours d’exécution, puis réessayez.",
  "error.badResponse": "Le moteur a répondu d’une façon que cet écran ne comprend pas. L’interface et le moteur ne sont peut-être pas de la même version.",
  "error.generic": "Le moteur a signalé une erreur.",
  "error.code": "Code",
  "error.details": "Détails",

  "action.retry": "Réessayer",
};
