//! API keys on both stores: stored with their limits, found by hash until revoked, their
//! webhooks listed and replaced, and the messages they handed in counted.

use smsdesk_core::access::{KeyLimits, Scope};

use super::{api_key, test_rows};
use crate::both_stores::on_both;
use crate::writer::write_for_tests;

#[test]
fn a_key_is_stored_found_by_hash_revoked_and_counted_alike_on_both_stores() {
    on_both(|db| {
        let limits = KeyLimits {
            per_minute: Some(60),
            per_day: None,
            destination_prefixes: vec!["+33".into(), "+44".into()],
            countries: vec!["FR".into()],
            otp_countries: vec![],
            spend_day: Some("5.00".into()),
            spend_month: None,
        };
        let (crm, shop) = write_for_tests(db, 1_000, |tx| {
            let new = |name, hash, url| api_key::NewKey {
                name,
                prefix: name,
                hash,
                created_by: "ana",
                webhook_url: url,
                webhook_secret: url.map(|_| "sealed"),
                scopes: &[Scope::Send, Scope::ReadOwn],
                limits: &limits,
            };
            let crm = api_key::insert(tx, &new("crm", "h-crm", Some("https://example.com/a")))?;
            let shop = api_key::insert(tx, &new("shop", "h-shop", None))?;
            Ok((crm, shop))
        })
        .unwrap();
        let active = api_key::active(&db, "h-crm").unwrap().unwrap();
        assert_eq!((active.id, active.name.as_str()), (crm, "crm"), "{:?}", db.dialect());
        assert_eq!(active.scopes, [Scope::Send, Scope::ReadOwn]);
        assert_eq!(active.limits, limits);
        let listed: Vec<i64> = api_key::list(&db).unwrap().iter().map(|k| k.id).collect();
        assert_eq!(listed, [shop, crm], "newest first");
        let hooks = api_key::webhooks(&db).unwrap();
        assert_eq!((hooks.len(), hooks[0].url.as_str()), (1, "https://example.com/a"));
        assert_eq!(api_key::with_webhook(&db).unwrap()[0].name, "crm");

        write_for_tests(db, 60_000, |tx| {
            test_rows::message_of(tx, "smsc-a", "+33612345678", "bulk", Some(crm))?;
            test_rows::message_of(tx, "smsc-a", "+33612345679", "bulk", Some(shop))?;
            Ok(())
        })
        .unwrap();
        write_for_tests(db, 120_000, |tx| {
            test_rows::message_of(tx, "smsc-a", "+33612345678", "bulk", Some(crm))?;
            assert_eq!(api_key::revoked_at(tx, crm)?, Some(None));
            api_key::set_webhook(tx, crm, "https://example.com/b", "sealed-b")?;
            api_key::revoke(tx, crm, "ana")?;
            assert_eq!(api_key::revoked_at(tx, crm)?, Some(Some(120_000)));
            assert_eq!(api_key::revoked_at(tx, crm + shop)?, None);
            Ok(())
        })
        .unwrap();
        assert_eq!(api_key::sent_since(&db, crm, 0).unwrap(), (2, Some(60_000)));
        assert_eq!(api_key::sent_since(&db, crm, 60_001).unwrap(), (1, Some(120_000)));
        assert_eq!(api_key::sent_since(&db, crm, 200_000).unwrap(), (0, None));
        assert_eq!(api_key::active(&db, "h-crm").unwrap(), None, "revoked");
        assert_eq!(api_key::webhooks(&db).unwrap()[0].url, "https://example.com/b");
        assert!(api_key::with_webhook(&db).unwrap().is_empty(), "its key is revoked");
    });
}
