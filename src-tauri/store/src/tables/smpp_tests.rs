//! smsdesk's SMPP server's accounts and outbox on both stores: an account made, refused a name
//! already bound, found; a receipt and a reply owed, listed and answered.

use smsdesk_core::domain::{DeliveryState, MessageKind};

use super::message_tests::{api_key, text};
use super::{message, smpp};
use crate::both_stores::on_both;
use crate::writer::write_for_tests;

#[test]
fn an_account_is_made_once_per_name_and_found_by_it_on_both_stores() {
    on_both(|db| {
        let crm = api_key(db, "crm");
        let shop = api_key(db, "shop");
        // A second key of the same name (a key's name is unique only among SMPP accounts).
        let twin: i64 = db
            .one(
                "INSERT INTO api_key (name, prefix, hash, created_at, created_by)
                 VALUES ('crm', 'sk_', 'crm-2', 1, 'test') RETURNING id",
                &[],
            )
            .unwrap();
        let kinds = [MessageKind::Transactional, MessageKind::Otp];
        let refused = write_for_tests(db, 1_000, |tx| {
            assert!(smpp::set_account(tx, crm, "argon-1", 10, 5, &kinds)?);
            let refused = !smpp::set_account(tx, twin, "argon-2", 10, 5, &kinds)?;
            // The refusal leaves the transaction usable (PostgreSQL would abort it otherwise).
            assert!(smpp::set_account(tx, shop, "argon-3", 20, 1, &[MessageKind::Bulk])?);
            Ok(refused)
        })
        .unwrap();
        assert!(refused, "a live account has the name: {:?}", db.dialect());
        let found = smpp::account(&db, "crm").unwrap().expect("the account");
        assert_eq!((found.key.id, found.key.name.as_str()), (crm, "crm"));
        assert_eq!(
            (found.password_hash.as_str(), found.tps, found.window, found.kinds),
            ("argon-1", 10, 5, kinds.to_vec())
        );
        assert_eq!(found.key.limits.per_minute, None);
        assert!(found.key.limits.countries.is_empty());
        assert_eq!(smpp::account(&db, "nobody").unwrap(), None);
        let listed: Vec<(i64, u32, Vec<MessageKind>)> = smpp::accounts(&db)
            .unwrap()
            .into_iter()
            .map(|a| (a.id, a.tps, a.kinds))
            .collect();
        assert_eq!(listed, [(shop, 20, vec![MessageKind::Bulk]), (crm, 10, kinds.to_vec())]);
    });
}

#[test]
fn a_receipt_and_a_reply_are_owed_once_listed_and_answered_on_both_stores() {
    on_both(|db| {
        let crm = api_key(db, "crm");
        let inbox: i64 = db
            .one(
                "INSERT INTO inbox_message (connection, thread, phone, handset, recipient, text, alphabet, parts,
                     parts_received, received_at, completed_at)
                 VALUES ('sandbox', 't', '+33600000080', '+33600000080', 'SHOP', 'thanks', 'gsm7', 1, 1, 3, 3)
                 RETURNING id",
                &[],
            )
            .unwrap();
        let (sent, replied) = write_for_tests(db, 2_000, |tx| {
            let mut m = text("+33600000080", "your order");
            m.api_key_id = Some(crm);
            m.smpp_receipt = Some(1);
            let sent = message::insert(tx, &m)?;
            smpp::receipt_due(tx, sent, 1, DeliveryState::Delivered)?;
            smpp::receipt_due(tx, sent, 1, DeliveryState::Undeliverable)?;
            smpp::receipt_due(tx, sent, 3, DeliveryState::Expired)?;
            Ok((sent, smpp::reply_due(tx, inbox, "+33600000080")?))
        })
        .unwrap();
        assert!(replied, "{:?}", db.dialect());
        assert_eq!(smpp::owner(&db, sent).unwrap(), Some(crm));
        assert_eq!(smpp::waiting(&db).unwrap(), 2);
        let owed = smpp::owed(&db, crm, 0, 10).unwrap();
        let seen: Vec<_> = owed
            .iter()
            .map(|o| {
                (
                    o.message_id,
                    o.stat.as_deref(),
                    o.message_state,
                    o.handset.as_str(),
                    o.text.as_str(),
                )
            })
            .collect();
        assert_eq!(
            seen,
            [
                (Some(sent), Some("DELIVRD"), Some(2), "+33600000080", "your order"),
                (None, None, None, "+33600000080", "thanks")
            ],
            "the first final state only"
        );
        assert_eq!(
            (owed[0].submitted_at, owed[0].segments, owed[1].ours.as_deref()),
            (Some(2_000), 1, Some("SHOP"))
        );
        assert_eq!(smpp::owed(&db, crm, owed[0].id, 10).unwrap().len(), 1);
        write_for_tests(db, 3_000, |tx| smpp::delivered(tx, &[owed[0].id, owed[1].id])).unwrap();
        assert_eq!(smpp::waiting(&db).unwrap(), 0);
        let replied = write_for_tests(db, 4_000, |tx| smpp::reply_due(tx, inbox, "+33699999999")).unwrap();
        assert!(!replied, "no message went to that number");
    });
}
