//! The guardrails' counts on both stores: one-time codes by number, prefix, key and country,
//! spend from the delivery report's sums, and the requests refused or held.

use super::guardrail::{self, GuardrailReason};
use super::{api_key, test_rows};
use crate::both_stores::on_both;
use crate::totals::HOUR_MS;
use crate::writer::write_for_tests;

const T: i64 = 1_800_000_000_000;

fn report_hour(db: crate::db::Db<'_>, hour: i64, sender: &str, country: &str, messages: i64, cost: i64) {
    db.execute(
        "INSERT INTO report_hour (hour, kind, connection, route, country, sender, outcome, command_status,
             error_code, messages, parts, cost)
         VALUES (?1, 'otp', 'smsc-a', '', ?2, ?3, 'delivered', 0, '', ?4, ?4, ?5)",
        &[&hour, &country, &sender, &messages, &cost],
    )
    .unwrap();
}

#[test]
fn codes_spend_and_refusals_are_counted_alike_on_both_stores() {
    on_both(|db| {
        let key = write_for_tests(db, T, |tx| {
            let key = api_key::insert(
                tx,
                &api_key::NewKey {
                    name: "website",
                    prefix: "web",
                    hash: "h",
                    created_by: "ana",
                    webhook_url: None,
                    webhook_secret: None,
                    scopes: &[],
                    limits: &Default::default(),
                },
            )?;
            let m = test_rows::message_of(tx, "smsc-a", "+33612345678", "otp", Some(key))?;
            test_rows::message_of(tx, "smsc-a", "+33612345699", "otp", None)?;
            test_rows::message_of(tx, "smsc-a", "+33612345678", "bulk", Some(key))?;
            tx.db().execute(
                "INSERT INTO message_smart (message_id, replaced) VALUES (?1, '3:x')",
                &[&m],
            )?;
            tx.db().execute(
                "INSERT INTO message_price (message_id, connection, price) VALUES (?1, 'smsc-b', 7), (?1, 'smsc-a', 5)",
                &[&m],
            )?;
            guardrail::count(tx, GuardrailReason::VelocityLimit, "FR", &format!("key:{key}"), 2)?;
            guardrail::count(tx, GuardrailReason::VelocityLimit, "FR", &format!("key:{key}"), 1)?;
            guardrail::count(tx, GuardrailReason::SpendLimit, "", "csv", 1)?;
            Ok(key)
        })
        .unwrap();
        assert_eq!(guardrail::otp_to_number(&db, "+33612345678", T).unwrap(), (1, Some(T)));
        assert_eq!(guardrail::otp_to_number(&db, "+33612345678", T + 1).unwrap(), (0, None));
        assert_eq!(guardrail::otp_to_prefix(&db, "+336123456", T).unwrap(), (2, Some(T)));
        assert_eq!(guardrail::otp_by_key(&db, key, T).unwrap(), (1, Some(T)));
        assert_eq!(guardrail::otp_to_country(&db, "FR", T, T + 1).unwrap(), 2);
        assert_eq!(guardrail::otp_to_country(&db, "FR", T + 1, T + 2).unwrap(), 0);
        assert_eq!(guardrail::smart_replaced(&db, 0).unwrap(), None);
        let m = db.one::<i64>("SELECT min(id) FROM message", &[]).unwrap();
        assert_eq!(guardrail::smart_replaced(&db, m).unwrap().as_deref(), Some("3:x"));
        assert_eq!(
            guardrail::prices_of(&db, m).unwrap(),
            [("smsc-a".to_owned(), 5), ("smsc-b".to_owned(), 7)]
        );

        let counts = guardrail::counts_since(&db, T).unwrap();
        let seen: Vec<(GuardrailReason, &str, i64)> =
            counts.iter().map(|c| (c.reason, c.label.as_str(), c.n)).collect();
        assert_eq!(
            seen,
            [
                (GuardrailReason::VelocityLimit, "website", 3),
                (GuardrailReason::SpendLimit, "csv", 1)
            ],
            "{:?}",
            db.dialect()
        );
        assert!(guardrail::counts_since(&db, T + HOUR_MS).unwrap().is_empty());

        let hour = T - T.rem_euclid(HOUR_MS);
        report_hour(db, hour, &format!("key:{key}"), "FR", 3, 150_000);
        report_hour(db, hour + HOUR_MS, &format!("key:{key}"), "GB", 1, 50_000);
        report_hour(db, hour, "csv", "FR", 1, 20_000);
        assert_eq!(guardrail::spent_since(&db, T, None).unwrap(), 220_000);
        assert_eq!(
            guardrail::spent_since(&db, T, Some(&format!("key:{key}"))).unwrap(),
            200_000
        );
        assert_eq!(guardrail::spent_since(&db, T + 2 * HOUR_MS, None).unwrap(), 0);
        let lines = guardrail::spend_lines(&db, hour, hour + 2 * HOUR_MS, 0).unwrap();
        let seen: Vec<(&str, &str, i64, i64)> = lines
            .iter()
            .map(|l| (l.label.as_str(), l.country.as_str(), l.messages, l.cost))
            .collect();
        assert_eq!(
            seen,
            [
                ("website", "FR", 3, 150_000),
                ("website", "GB", 1, 50_000),
                ("csv", "FR", 1, 20_000)
            ]
        );
    });
}
