import type { settingsAlertsEn } from "./en";

/** Réglages : les règles des alertes, leurs canaux, et le serveur SMTP par lequel elles partent. */
export const settingsAlertsFr: { readonly [K in keyof typeof settingsAlertsEn]: string } = {
  "settings.section.alerts": "Alertes et e-mail",
  "settings.section.alerts.intro":
    "Ce dont smsdesk avertit quand personne ne regarde, et comment : par e-mail, au webhook de chaque clé d’API ayant la portée « alerts », et dans cette fenêtre. Chaque règle est expliquée dans {doc}.",
  "settings.section.alerts.open": "Ouvrir les alertes",
  "settings.alerts.rules": "Quand alerter",
  "settings.alerts.rules.intro":
    "Chaque règle se déclenche une fois quand son seuil est franchi, rappelle tant qu’elle dure, et dit quand elle est résolue.",
  "settings.alerts.channels": "Qui est prévenu, et quand",
  "settings.alerts.smtp": "Serveur d’e-mail (SMTP)",
  "settings.alerts.smtp.intro": "Le serveur par lequel partent les alertes et le résumé du jour. Sans hôte, aucun e-mail n’est envoyé.",
  "settings.alerts.smtpPassword.unseen":
    "Jamais affiché ici. Se définit avec la commande {command} (conservé dans le trousseau du système, ou chiffré dans le dossier de données), ou avec la variable d’environnement {name}.",
  "settings.alerts.smtpPassword.env": "Défini par la variable d’environnement {name} ; jamais affiché ici.",
  "settings.alerts.smtpPassword.file":
    "Écrit dans le fichier de configuration ; jamais affiché ici. Mieux vaut l’en sortir : la commande {command} le conserve dans le trousseau du système, ou chiffré dans le dossier de données.",

  "setting.alerts.enabled": "Alertes activées",
  "setting.alerts.email_to": "Envoyer les alertes à",
  "setting.alerts.language": "Langue des alertes et du résumé",
  "setting.alerts.screen_url": "Adresse de smsdesk, pour les liens des alertes",
  "setting.alerts.link_down_minutes": "Connexion coupée depuis (minutes)",
  "setting.alerts.queue_stuck_minutes": "File d’attente bloquée depuis (minutes)",
  "setting.alerts.failure_rate_percent": "Taux d’échec (%)",
  "setting.alerts.failure_window_minutes": "Taux d’échec compté sur (minutes)",
  "setting.alerts.receipts_silent_minutes": "Aucun accusé depuis (minutes)",
  "setting.alerts.open_exceptions_over": "Exceptions ouvertes au-delà de",
  "setting.alerts.disk_free_mib": "Espace disque libre sous (Mio)",
  "setting.alerts.backup_max_age_hours": "Dernière sauvegarde plus ancienne que (heures)",
  "setting.alerts.webhook_failing_minutes": "Webhook en échec depuis (minutes)",
  "setting.alerts.opt_out_spike": "Désinscriptions en une heure au-delà de",
  "setting.alerts.repeat_minutes": "Rappeler toutes les (minutes)",
  "setting.alerts.email_quiet_hours": "Heures calmes pour l’e-mail",
  "setting.alerts.webhook_quiet_hours": "Heures calmes pour les webhooks",
  "setting.alerts.daily_summary": "Envoyer un résumé quotidien par e-mail",
  "setting.alerts.summary_hour": "Résumé envoyé à (heure, 0–23)",
  "setting.alerts.check_seconds": "Examiner les règles toutes les (secondes)",
  "setting.smtp.host": "Serveur (hôte)",
  "setting.smtp.port": "Port",
  "setting.smtp.security": "Sécurité",
  "setting.smtp.from": "Adresse d’expéditeur",
  "setting.smtp.username": "Nom d’utilisateur",
  "setting.smtp.password": "Mot de passe",
  "setting.smtp.timeout_seconds": "Délai pour remettre un e-mail (secondes)",

  "settingHelp.alerts.enabled": "Décoché : aucune règle n’est surveillée et aucun résumé quotidien n’est envoyé.",
  "settingHelp.alerts.email_to":
    "Adresses séparées par des virgules, par exemple bureau@example.org, it@example.org. Aucune : pas d’e-mail.",
  "settingHelp.alerts.language":
    "« Selon le pays du bureau » : français pour la France, la Belgique, la Suisse, le Luxembourg, Monaco et le Canada ; russe pour la Russie, la Biélorussie, le Kazakhstan et le Kirghizistan ; anglais sinon.",
  "settingHelp.alerts.screen_url":
    "L’adresse à laquelle on ouvre smsdesk, par exemple https://sms.example.org : chaque alerte y renvoie. Vide : l’adresse sur laquelle smsdesk écoute, qui peut ne pas s’ouvrir depuis un autre ordinateur.",
  "settingHelp.alerts.link_down_minutes": "Se déclenche quand une connexion reste déliée aussi longtemps.",
  "settingHelp.alerts.queue_stuck_minutes": "Se déclenche quand le plus ancien message à envoyer a attendu aussi longtemps.",
  "settingHelp.alerts.failure_rate_percent":
    "Se déclenche quand cette part des envois de la période a été refusée ou est restée sans réponse (avec au moins 20 envois dans la période).",
  "settingHelp.alerts.failure_window_minutes": "Les dernières minutes sur lesquelles le taux d’échec est compté.",
  "settingHelp.alerts.receipts_silent_minutes":
    "Se déclenche quand aucun accusé n’est arrivé depuis aussi longtemps, alors que des envois qui en demandaient un avaient été acceptés avant.",
  "settingHelp.alerts.open_exceptions_over": "Se déclenche quand plus d’exceptions que cela attendent une personne.",
  "settingHelp.alerts.disk_free_mib": "Se déclenche quand le disque de la base de données a moins d’espace libre que cela.",
  "settingHelp.alerts.backup_max_age_hours":
    "Se déclenche quand la dernière sauvegarde automatique est plus ancienne que cela (si les sauvegardes quotidiennes sont actives).",
  "settingHelp.alerts.webhook_failing_minutes": "Se déclenche quand le webhook d’une clé d’API échoue aussi longtemps.",
  "settingHelp.alerts.opt_out_spike": "Se déclenche quand plus de numéros que cela se désinscrivent par réponse en une heure.",
  "settingHelp.alerts.repeat_minutes":
    "Tant qu’une alerte dure, elle est redite au plus à cette fréquence ; en prendre connaissance arrête les rappels.",
  "settingHelp.alerts.email_quiet_hours":
    "À l’heure locale du bureau, par exemple 22:00-07:00 ; vide pour aucune. Aucune alerte n’est envoyée par e-mail pendant ces heures, sauf celles sur les codes à usage unique ; ce qui a été retenu part à leur fin.",
  "settingHelp.alerts.webhook_quiet_hours":
    "La même chose pour les webhooks : par exemple 22:00-07:00, vide pour aucune. Les alertes sur les codes à usage unique partent quand même.",
  "settingHelp.alerts.daily_summary":
    "Chaque matin, un résumé de la veille (quand des adresses et le serveur d’e-mail sont définis).",
  "settingHelp.alerts.summary_hour": "À l’heure locale du bureau.",
  "settingHelp.smtp.host": "Vide : aucun e-mail n’est envoyé.",
  "settingHelp.smtp.port": "587 pour STARTTLS, 465 pour TLS, 25 pour un relais sur cet ordinateur.",
  "settingHelp.smtp.from": "L’adresse d’où partent les alertes, par exemple smsdesk@example.org.",
  "settingHelp.smtp.username": "Vide : pas de connexion au serveur avec un compte.",

  "settings.choice.alerts.language.auto": "Selon le pays du bureau",
  "settings.choice.alerts.language.en": "English",
  "settings.choice.alerts.language.fr": "Français",
  "settings.choice.alerts.language.ru": "Русский",
  "settings.choice.smtp.security.starttls": "STARTTLS (port 587)",
  "settings.choice.smtp.security.tls": "TLS (port 465)",
  "settings.choice.smtp.security.none": "Aucune — un relais sur cet ordinateur ou un réseau de confiance",
};
