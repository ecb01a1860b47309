import type { smppEn } from "./en";

/** SMPP au-delà de la seule liaison en clair : TLS vers le fournisseur, et le serveur SMPP de smsdesk. */
export const smppFr: { readonly [K in keyof typeof smppEn]: string } = {
  "setting.smpp.tls": "Utiliser TLS (une connexion chiffrée)",
  "setting.smpp.tls_ca_file": "Fichier des autorités de certification (PEM)",
  "setting.smpp.tls_server_name": "Nom sur le certificat du fournisseur",
  "setting.smpp.tls_pin_sha256": "Certificat épinglé (SHA-256)",
  "setting.smpp.tls_client_cert_file": "Fichier du certificat client (PEM)",
  "setting.smpp.tls_client_key_file": "Fichier de la clé du certificat client (PEM)",
  "settingHelp.smpp.tls":
    "Recommandé quand votre fournisseur propose un port TLS : le mot de passe, les messages et les accusés de réception circulent alors chiffrés. Le port TLS est en général différent du port en clair : demandez-le à votre fournisseur et changez aussi le port. Avec TLS, smsdesk ne repasse jamais en clair.",
  "settingHelp.smpp.tls_ca_file":
    "Seulement si le certificat du fournisseur est signé par une autorité que cet ordinateur ne connaît pas : le chemin du fichier PEM de cette autorité. Vide : les autorités du système.",
  "settingHelp.smpp.tls_server_name":
    "Le nom pour lequel le certificat doit être établi, quand vous vous connectez par une adresse IP ou sous un autre nom. Vide : l’hôte.",
  "settingHelp.smpp.tls_pin_sha256":
    "Pour un certificat autosigné : son SHA-256 (64 chiffres hexadécimaux, deux-points permis, tel que openssl x509 -noout -fingerprint -sha256 l’affiche). Ce certificat est alors accepté, et aucun autre. Vide : pas d’épinglage.",
  "settingHelp.smpp.tls_client_cert_file":
    "Seulement si le fournisseur demande un certificat client : le chemin de son fichier PEM (avec sa chaîne). Vide : aucun.",
  "settingHelp.smpp.tls_client_key_file":
    "La clé privée de ce certificat client (PEM), lisible par le seul utilisateur de smsdesk.",
  "settings.tls.title": "Chiffrement (TLS)",
  "settings.tls.clear":
    "Enregistrée avec TLS : sans lui, le mot de passe et les messages circuleraient en clair. Le test demande alors le mot de passe, car celui enregistré n’est envoyé que par TLS.",
  "settings.tls.clientUntested":
    "Le test utilise le certificat client et sa clé tels qu’enregistrés : ceux saisis ici servent une fois enregistrés.",
  "settings.tls.pin.invalid":
    "Un SHA-256 compte 64 chiffres hexadécimaux (0–9 et A–F), deux-points permis, tel qu’openssl l’affiche.",

  "settings.test.tls": "Problème de certificat — rien n’a été envoyé",
  "settings.test.check.tls":
    "La connexion chiffrée n’a pas pu être établie : smsdesk n’a rien envoyé, pas même le mot de passe. Vérifiez le fichier des autorités, le nom sur le certificat et l’épinglage, ou demandez à votre fournisseur quel certificat présente son port TLS.",
  "settings.test.tls.problem": "Le problème :",
  "fieldError.required.password":
    "Saisissez le mot de passe de ce serveur : le mot de passe enregistré n’est envoyé qu’au serveur pour lequel il l’a été (même hôte, même port, même identifiant système), et seulement par TLS s’il l’a été pour TLS.",

  "settings.connections.tls": "Chiffrement (TLS)",
  "settings.connections.tls.file":
    "Cette liste ne change pas TLS : l’enregistrer conserve ce que le fichier de configuration définit pour la connexion ([connections.{name}] : tls = true, tls_ca_file, tls_server_name, tls_pin_sha256, tls_client_cert_file, tls_client_key_file). Ce que vous choisissez ci-dessous ne sert qu’au test.",
  "settings.connections.tls.choice": "TLS pour le test",
  "settings.connections.tls.saved": "Comme enregistré dans le fichier de configuration",
  "settings.connections.tls.on": "Utiliser TLS",
  "settings.connections.tls.off": "Sans TLS (en clair)",
  "settings.connections.tls.client":
    "Un certificat client, s’il en faut un, est celui enregistré dans le fichier de configuration.",

  "settings.section.smppServer": "Serveur SMPP",
  "settings.section.smppServer.intro":
    "Le serveur SMPP de smsdesk, pour les systèmes du bureau qui n’envoient des SMS que par SMPP (un standard téléphonique, un système de laboratoire) : ce qu’ils remettent rejoint la même file. Les changements s’appliquent au prochain démarrage.",
  "settings.section.smppServer.accounts": "Ses comptes sont sur l’écran des clés d’API.",
  "setting.smpp_server.enabled": "Servir SMPP aux systèmes du bureau",
  "setting.smpp_server.bind": "Adresse d’écoute",
  "setting.smpp_server.port": "Port",
  "setting.smpp_server.tls": "Servir uniquement par TLS",
  "setting.smpp_server.tls_cert_file": "Fichier du certificat du serveur (PEM, avec sa chaîne)",
  "setting.smpp_server.tls_key_file": "Fichier de la clé du certificat du serveur (PEM)",
  "settingHelp.smpp_server.bind":
    "127.0.0.1 : cet ordinateur seul. 0.0.0.0 : le réseau du bureau aussi (servez alors par TLS).",
  "settingHelp.smpp_server.port": "2775 est le port habituel de SMPP.",
  "settingHelp.smpp_server.tls":
    "Les clients ne se connectent alors que par TLS, avec le certificat ci-dessous : recommandé dès que le serveur écoute au-delà de cet ordinateur.",
  "settingHelp.smpp_server.tls_key_file": "Lisible par le seul utilisateur de smsdesk.",

  "smppServer.title": "Serveur SMPP",
  "smppServer.listening": "À l’écoute sur {address}",
  "smppServer.tls": "TLS",
  "smppServer.clear": "Sans TLS",
  "smppServer.problem": "Le serveur SMPP n’écoute pas",
  "smppServer.starting": "Pas encore à l’écoute : il démarre.",
  "smppServer.none": "Aucun client lié.",
  "smppServer.table": "Clients liés au serveur SMPP",
  "smppServer.col.account": "Compte",
  "smppServer.col.bind": "Liaison",
  "smppServer.col.peer": "Adresse",
  "smppServer.col.tls": "TLS",
  "smppServer.col.since": "Depuis",
  "smppServer.col.submitted": "Remis",
  "smppServer.col.refused": "Refusés",
  "smppServer.col.rate": "Débit/s",
  "smppServer.col.delivered": "Accusés remis",
  "smppServer.bind.transceiver": "Transceiver",
  "smppServer.bind.transmitter": "Émetteur",
  "smppServer.bind.receiver": "Récepteur",
  "smppServer.session.clear": "Non",
  "smppServer.waiting.none": "Aucun accusé de réception n’attend son client.",
  "smppServer.waiting.one": "{count} accusé de réception attend son client",
  "smppServer.waiting.few": "{count} accusés de réception attendent leur client",
  "smppServer.waiting.many": "{count} d’accusés de réception attendent leur client",
  "smppServer.waiting.other": "{count} accusés de réception attendent leur client",
};
