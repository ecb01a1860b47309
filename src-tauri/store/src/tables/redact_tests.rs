//! Redaction on both stores, where it needs no number's hash: a message's text replaced by its
//! tombstone, and a receipt's content removed but for its facts.

use super::*;
use crate::both_stores::on_both;
use crate::tables::test_rows;
use crate::writer::write_for_tests;

/// The tombstone every new database starts with (`code_echo`).
const T: i64 = 1;

#[test]
fn a_text_and_a_receipts_content_are_removed_once_alike_on_both_stores() {
    on_both(|db| {
        let (m, r) = write_for_tests(db, 1_000, |tx| {
            let m = test_rows::message(tx, "smsc-a", "+33612345678", "otp")?;
            let text = "id:K1 sub:001 dlvrd:001 stat:DELIVRD err:000 Text:hello";
            let tlvs =
                r#"[{"tag":"0x0424","hex":"68656c6c6f"},{"tag":"0x001e","hex":"4b31"},{"tag":"0x0427","hex":"02"}]"#;
            let r = tx.receipts().append(&crate::tables::receipt::NewReceipt {
                received_at: 1_000,
                connection: "smsc-a".into(),
                raw: text.as_bytes().to_vec(),
                raw_text: Some(text.into()),
                pdu: Some(vec![1, 2, 3]),
                tlvs_json: Some(tlvs.into()),
                ..Default::default()
            })?;
            Ok((m, r))
        })
        .unwrap();
        write_for_tests(db, 2_000, |tx| {
            assert!(message_text(tx, m, T)?);
            assert!(!message_text(tx, m, T)?, "already gone");
            assert!(receipt_content(tx, r, T)?);
            assert!(!receipt_content(tx, r, T)?, "already gone");
            Ok(())
        })
        .unwrap();
        let (body, tombstone): (String, Option<i64>) = db
            .query_row("SELECT body, text_redaction FROM message WHERE id = ?1", &[&m], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .unwrap();
        assert_eq!((body.as_str(), tombstone), ("", Some(T)), "{:?}", db.dialect());
        let read = |column: &str| -> Option<Vec<u8>> {
            db.one(&format!("SELECT {column} FROM receipt WHERE id = ?1"), &[&r])
                .unwrap()
        };
        let (raw, pdu) = (read("raw").unwrap(), read("pdu"));
        let (text, tlvs, redaction): (Option<String>, String, Option<i64>) = db
            .query_row(
                "SELECT raw_text, tlvs_json, redaction FROM receipt WHERE id = ?1",
                &[&r],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .unwrap();
        assert_eq!((raw, pdu, redaction), (Vec::new(), None, Some(T)));
        assert_eq!(
            text.as_deref(),
            Some("id:K1 sub:001 dlvrd:001 stat:DELIVRD err:000 Text:")
        );
        let kept: serde_json::Value = serde_json::from_str(&tlvs).unwrap();
        assert_eq!(
            kept,
            serde_json::json!([{"tag": "0x001e", "hex": "4b31"}, {"tag": "0x0427", "hex": "02"}]),
            "the facts kept, in their order"
        );
    });
}
