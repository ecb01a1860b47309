//! Les mots des alertes, en français.

use super::Lexicon;
use crate::alerts::AlertRule;

pub(super) const FR: Lexicon = Lexicon {
    rule: |rule| match rule {
        AlertRule::LinkDown => [
            "La connexion {subject} est coupée",
            "La connexion SMPP « {subject} » n'est plus liée depuis {since}. Sa dernière erreur : {error}.",
            "{waiting} messages attendent dans la file ; ceux qui sont dus partiront à son retour, ou par une autre connexion de leur route.",
            "Vérifiez l'état du fournisseur et le réseau de ce serveur ; le tableau de bord montre la dernière erreur de la connexion, et Réglages → Connexions permet de la tester.",
        ],
        AlertRule::AllLinksDown => [
            "Plus aucune connexion au fournisseur SMS",
            "Aucune des connexions SMPP ({connections}) n'est liée depuis {since}. Dernière erreur : {error}.",
            "Rien ne part : {waiting} messages attendent dans la file, et des codes à usage unique peuvent expirer avant de partir.",
            "Vérifiez la connexion internet de ce serveur et la page d'état du fournisseur ; le tableau de bord montre la dernière erreur de chaque connexion.",
        ],
        AlertRule::QueueStuck => [
            "Des messages attendent trop longtemps",
            "Le plus ancien message à envoyer attend depuis {oldest_minutes} minutes.",
            "Rien n'est parti depuis deux minutes ; {waiting} messages attendent dans la file.",
            "Regardez le tableau de bord : une connexion coupée, en vidange ou désactivée, ou une route sans connexion qui fonctionne, les retient.",
        ],
        AlertRule::FailureRate => [
            "Beaucoup d'envois refusés",
            "{percent} % des {submits} derniers envois (sur {window_minutes} minutes) ont été refusés ({refused}) ou sont restés sans réponse ({unanswered}).",
            "Des messages sont retentés ou échouent ; le fournisseur refuse peut-être un nom d'expéditeur, une destination, ou le crédit du compte.",
            "Ouvrez les Rapports, par statut SMPP, pour voir les codes de refus et les messages concernés.",
        ],
        AlertRule::ReceiptsSilent => [
            "Aucun accusé de réception",
            "Aucun accusé n'est arrivé depuis {silent_minutes} minutes, alors que des messages acceptés depuis {since} en demandaient un.",
            "Les états de remise restent en attente ; les messages seront signalés « sans accusé » à leur échéance.",
            "Vérifiez que la connexion se lie en réception (émetteur-récepteur), et les réglages d'accusés du compte chez le fournisseur.",
        ],
        AlertRule::OtpUnknown => [
            "Codes à usage unique à l'issue inconnue",
            "{codes} codes à usage unique ont été écrits vers le fournisseur sans que sa réponse arrive.",
            "La personne qui attend un code ne l'a peut-être pas ; smsdesk ne le renvoie pas de lui-même.",
            "Ouvrez l'écran Exceptions et tranchez chacune : renvoyer, ou marquer.",
        ],
        AlertRule::OtpHeld => [
            "Codes à usage unique retenus : un afflux inhabituel",
            "{codes} codes à usage unique sont retenus : les codes vers un pays ont bondi bien au-delà de l'habitude.",
            "Des robots demandent peut-être des codes vers des numéros surtaxés ; les codes retenus ne partent pas.",
            "Ouvrez l'écran Garde-fous, puis libérez les codes légitimes ou annulez-les depuis l'écran Exceptions.",
        ],
        AlertRule::OpenExceptions => [
            "Les exceptions s'accumulent",
            "{open} exceptions sont ouvertes (la limite est {over}).",
            "Des messages dont l'issue demande une décision restent en suspens.",
            "Ouvrez l'écran Exceptions et traitez d'abord les plus anciennes.",
        ],
        AlertRule::DiskLow => [
            "Le disque est presque plein",
            "{free_mib} Mio sont libres sur le disque de la base de données (la limite est {under_mib} Mio).",
            "Une fois la réserve atteinte, les nouveaux messages sont refusés pour garder la place des envois et des accusés.",
            "Libérez de la place sur ce disque, ou déplacez les sauvegardes ailleurs (backup.dir).",
        ],
        AlertRule::WriterFailing => [
            "La base de données ne peut plus être écrite",
            "L'écriture dans la base échoue : {error}.",
            "Rien de nouveau ne peut être enregistré : les nouveaux messages sont refusés et les accusés attendent chez le fournisseur.",
            "Vérifiez le disque (place, erreurs) et le journal de smsdesk ; redémarrez smsdesk s'il ne se rétablit pas.",
        ],
        AlertRule::BackupLate => [
            "La sauvegarde quotidienne est en retard",
            "Dernière sauvegarde : {last_backup}. Erreur du dernier essai : {error}.",
            "Un disque perdu ferait perdre tout ce qui a suivi la dernière sauvegarde.",
            "Vérifiez le dossier des sauvegardes (backup.dir) : son disque et ses droits ; « smsdesk backup » en prend une tout de suite.",
        ],
        AlertRule::WebhookFailing => [
            "Le webhook de {subject} échoue",
            "Les notifications vers le webhook de la clé d'API « {subject} » échouent depuis {since} ; {waiting} attendent. Dernière erreur : {error}.",
            "Le site ou le CRM derrière lui ne sait plus ce que deviennent ses messages.",
            "Vérifiez que son adresse répond par un statut 2xx ; les notifications sont gardées et retentées.",
        ],
        AlertRule::OptOutSpike => [
            "Beaucoup de désinscriptions",
            "{numbers} numéros se sont désinscrits par réponse dans la dernière heure (la limite est {over}).",
            "Un message a peut-être fâché ses lecteurs, ou touche les mauvaises personnes.",
            "Lisez les dernières réponses dans la Boîte de réception, et suspendez la campagne s'il y en a une en cours.",
        ],
    },
    fired: "ALERTE",
    repeated: "Toujours en cours",
    resolved: "Résolu",
    noticed: "Constaté le",
    colon: " : ",
    ended: "Terminé à {at}, au bout de {duration}.",
    affects: "Conséquences",
    todo: "Que faire",
    open: "Ouvrir",
    none: "aucune",
    never: "jamais",
    hours: "h",
    minutes: "min",
    test_subject: "Alerte de test",
    test_body: "Ceci est une alerte de test envoyée par smsdesk le {at}. Si vous la lisez, les alertes vous parviennent par ce canal.",
    summary_subject: "Bilan du {day}",
    summary_lines: [
        "Messages reçus pour envoi : {total} (codes à usage unique {otp}, transactionnels {transactional}, en masse {bulk}).",
        "Remis : {delivered} ({delivered_percent} %). Échoués : {failed}. Expirés : {expired}. Annulés : {cancelled}.",
        "En attente d'un accusé final : {pending}. Sans accusé à l'échéance : {no_receipt}. Issue inconnue : {unknown}.",
        "Exceptions : {opened} ouvertes, {closed} fermées. Désinscriptions : {opt_outs}.",
    ],
    summary_failures: "Échecs les plus fréquents",
    summary_status: "Statut SMPP {status}, code d'erreur {code} : {n}",
    summary_alerts: "Alertes de la journée",
};
