//! Reading replies: parts put back together, and what a missing part looks like.

use super::{distinct_parts, put_together, tlvs_of};
use crate::store::tables::inbound::StoredPart;

fn part(id: i64, seq: u8, text: &str) -> StoredPart {
    StoredPart {
        id,
        seq,
        text: text.into(),
        alphabet: "ucs2".into(),
        received_at: 1_000 + id,
    }
}

#[test]
fn parts_join_in_their_order_whatever_order_they_came_in() {
    let parts = [part(1, 1, "Bonjour, "), part(3, 3, "demain."), part(2, 2, "pas ")];
    let mut sorted = parts.to_vec();
    sorted.sort_by_key(|p| p.seq);
    assert_eq!(put_together(&sorted, 3), ("Bonjour, pas demain.".to_owned(), 3));
}

#[test]
fn a_missing_part_shows_as_a_gap_and_counts_as_missing() {
    let parts = [part(1, 1, "Bonjour, "), part(3, 3, "demain.")];
    assert_eq!(put_together(&parts, 3), ("Bonjour,  […] demain.".to_owned(), 2));
}

#[test]
fn a_part_received_twice_counts_once() {
    let parts = [part(1, 1, "a"), part(2, 1, "a"), part(3, 2, "b")];
    assert_eq!(distinct_parts(&parts), 2);
    assert_eq!(put_together(&parts, 2), ("ab".to_owned(), 2));
}

#[test]
fn tlvs_read_back_as_the_receipt_log_wrote_them() {
    let tlvs = tlvs_of(Some(r#"[{"tag":"0x020c","hex":"0007"},{"tag":"0x0424","hex":"4869"}]"#));
    assert_eq!(tlvs.len(), 2);
    assert_eq!((tlvs[0].tag, tlvs[0].value.clone()), (0x020c, vec![0, 7]));
    assert_eq!((tlvs[1].tag, tlvs[1].value.clone()), (0x0424, b"Hi".to_vec()));
    assert!(tlvs_of(Some("not json")).is_empty());
    assert!(tlvs_of(None).is_empty());
}
