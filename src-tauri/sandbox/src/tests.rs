//! The sandbox over real TCP, driven by a bare SMPP client on rusmpp's codec: one test per
//! scenario, each checking what went over the wire and what the sandbox counted.

use std::time::Duration;

use futures::{SinkExt, StreamExt};
use rusmpp::pdus::{BindTransceiver, DeliverSm, SubmitSm};
use rusmpp::tlvs::TlvValue;
use rusmpp::tokio_codec::CommandCodec;
use rusmpp::types::OctetString;
use rusmpp::values::{EsmClass, InterfaceVersion, Npi, RegisteredDelivery, Ton};
use rusmpp::{Command, CommandId, CommandStatus, Pdu};
use tokio::net::TcpStream;
use tokio_util::codec::Framed;

use super::{Mo, MoStyle, Sandbox, SandboxConfig};
use crate::cstr::cstr;
use smsdesk_core::receipts::parse::{parse_smpp, SmppPdu, SmppReport};

struct Client {
    framed: Framed<TcpStream, CommandCodec>,
    seq: u32,
}

/// What a receipt said, read by smsdesk's own parser.
#[derive(Debug, PartialEq, Eq)]
struct Seen {
    esm: u8,
    id: Option<String>,
    stat: Option<&'static str>,
}

impl Client {
    async fn connect(sandbox: &Sandbox) -> Client {
        let stream = TcpStream::connect(sandbox.addr()).await.unwrap();
        Client {
            framed: Framed::new(stream, CommandCodec::new()),
            seq: 0,
        }
    }

    async fn send(&mut self, pdu: impl Into<Pdu>) -> u32 {
        self.seq += 1;
        self.framed
            .send(Command::new(CommandStatus::EsmeRok, self.seq, pdu))
            .await
            .unwrap();
        self.seq
    }

    async fn bind(&mut self) -> CommandStatus {
        let bind = BindTransceiver::builder()
            .system_id(cstr("tester"))
            .password(cstr("secret"))
            .interface_version(InterfaceVersion::Smpp3_4)
            .build();
        self.send(bind).await;
        let resp = self.next().await.expect("a bind answer");
        assert_eq!(resp.id(), CommandId::BindTransceiverResp);
        resp.status()
    }

    async fn submit(&mut self, destination: &str, text: &str) -> u32 {
        let submit = SubmitSm::builder()
            .source_addr(cstr("SHOP"))
            .destination_addr(cstr(destination))
            .esm_class(EsmClass::from(0))
            .registered_delivery(RegisteredDelivery::from(1))
            .short_message(OctetString::from_vec(text.as_bytes().to_vec()).unwrap())
            .build();
        self.send(submit).await
    }

    /// The next command, or None when the connection closed or nothing came within a second.
    async fn next(&mut self) -> Option<Command> {
        match tokio::time::timeout(Duration::from_secs(1), self.framed.next()).await {
            Ok(Some(Ok(c))) => Some(c),
            _ => None,
        }
    }

    /// Answers deliver_sm as a client must, and returns what each receipt said.
    async fn receipts(&mut self, how_many: usize) -> Vec<Seen> {
        self.deliver_sms(how_many)
            .await
            .iter()
            .map(|d| read(d.esm_class.into(), d.short_message().as_ref()))
            .collect()
    }

    /// Answers deliver_sm as a client must, and returns the next `how_many` of them.
    async fn deliver_sms(&mut self, how_many: usize) -> Vec<DeliverSm> {
        let mut got = Vec::new();
        while got.len() < how_many {
            let c = self
                .next()
                .await
                .unwrap_or_else(|| panic!("expected {how_many} deliver_sm, got {got:?}"));
            if let Some(Pdu::DeliverSm(d)) = c.pdu() {
                got.push(d.clone());
                let resp = Command::new(
                    CommandStatus::EsmeRok,
                    c.sequence_number(),
                    Pdu::DeliverSmResp(Default::default()),
                );
                self.framed.send(resp).await.unwrap();
            }
        }
        got
    }

    async fn submit_resp(&mut self) -> (CommandStatus, String) {
        loop {
            let c = self.next().await.expect("a submit_sm_resp");
            if let Some(Pdu::SubmitSmResp(r)) = c.pdu() {
                return (c.status(), r.message_id().to_string());
            }
        }
    }
}

fn read(esm: u8, text: &[u8]) -> Seen {
    let p = parse_smpp(&SmppReport {
        pdu: SmppPdu::DeliverSm,
        esm_class: Some(esm),
        data_coding: None,
        short_message: text,
        tlvs: &[],
    });
    Seen {
        esm,
        id: p.message_id,
        stat: p.stat.map(|s| s.as_str()),
    }
}

fn delivered(id: &str) -> Seen {
    Seen {
        esm: 0x04,
        id: Some(id.into()),
        stat: Some("DELIVRD"),
    }
}

async fn sandbox() -> Sandbox {
    Sandbox::start(SandboxConfig {
        receipt_delay: Duration::from_millis(20),
        ..SandboxConfig::default()
    })
    .await
    .unwrap()
}

async fn bound(s: &Sandbox) -> Client {
    let mut c = Client::connect(s).await;
    assert_eq!(c.bind().await, CommandStatus::EsmeRok);
    c
}

#[tokio::test]
async fn delivered_a_receipt_follows_acceptance_and_is_counted_once() {
    let s = sandbox().await;
    let mut c = bound(&s).await;
    c.submit("+33612345600", "Your order shipped").await;
    let (status, id) = c.submit_resp().await;
    assert_eq!(status, CommandStatus::EsmeRok);
    assert_eq!(c.receipts(1).await, vec![delivered(&id)]);
    let counts = s.counts("+33612345600", b"Your order shipped");
    assert_eq!((counts.submits, counts.accepted), (1, 1));
    assert!(s.accepted_twice().is_empty());
}

/// A receipt written to a client that died before it answered is not lost: the next bound
/// session gets it (an SMSC keeps what it could not hand over); an answered one is not sent again.
#[tokio::test]
async fn a_receipt_never_acknowledged_goes_to_the_next_bound_session() {
    let s = sandbox().await;
    let mut first = bound(&s).await;
    first.submit("+33612345600", "answered").await;
    let (_, answered) = first.submit_resp().await;
    assert_eq!(first.receipts(1).await, vec![delivered(&answered)]);
    first.submit("+33612345600", "never answered").await;
    let (_, unanswered) = first.submit_resp().await;
    // Read, never answered: the client dies with it.
    let c = loop {
        let c = first.next().await.expect("the second receipt");
        if c.id() == CommandId::DeliverSm {
            break c;
        }
    };
    let text = match c.pdu() {
        Some(Pdu::DeliverSm(d)) => d.short_message().as_ref().to_vec(),
        _ => unreachable!(),
    };
    assert_eq!(read(0x04, &text).id.as_deref(), Some(unanswered.as_str()));
    drop(first);
    let mut second = bound(&s).await;
    assert_eq!(second.receipts(1).await, vec![delivered(&unanswered)]);
    assert!(second.next().await.is_none(), "the answered receipt is not sent again");
}

/// A receipt the client answers with an error (ESME_RX_T_APPN: it could not store it) comes
/// again a moment later.
#[tokio::test]
async fn a_receipt_refused_for_now_is_delivered_again() {
    let s = sandbox().await;
    let mut c = bound(&s).await;
    c.submit("+33612345600", "stored later").await;
    let (_, id) = c.submit_resp().await;
    let refused = loop {
        let next = c.next().await.expect("the receipt");
        if next.id() == CommandId::DeliverSm {
            break next;
        }
    };
    let nack = Command::new(
        CommandStatus::EsmeRxTAppn,
        refused.sequence_number(),
        Pdu::DeliverSmResp(Default::default()),
    );
    c.framed.send(nack).await.unwrap();
    tokio::time::sleep(Duration::from_millis(1_200)).await;
    assert_eq!(c.receipts(1).await, vec![delivered(&id)], "delivered again");
}

#[tokio::test]
async fn failed_finals_carry_their_status() {
    let s = sandbox().await;
    let mut c = bound(&s).await;
    for (dest, stat) in [
        ("+33612345601", "UNDELIV"),
        ("+33612345602", "EXPIRED"),
        ("+33612345603", "REJECTD"),
    ] {
        c.submit(dest, "x").await;
        let (_, id) = c.submit_resp().await;
        assert_eq!(
            c.receipts(1).await,
            vec![Seen {
                esm: 0x04,
                id: Some(id),
                stat: Some(stat)
            }],
            "{dest}"
        );
    }
}

#[tokio::test]
async fn intermediate_duplicate_out_of_order_and_conflicting_receipts() {
    let s = sandbox().await;
    let mut c = bound(&s).await;
    let enroute = |id: &str| Seen {
        esm: 0x20,
        id: Some(id.into()),
        stat: Some("ENROUTE"),
    };
    let undeliv = |id: &str| Seen {
        esm: 0x04,
        id: Some(id.into()),
        stat: Some("UNDELIV"),
    };

    c.submit("+33612345604", "a").await;
    let (_, id) = c.submit_resp().await;
    assert_eq!(
        c.receipts(2).await,
        vec![enroute(&id), delivered(&id)],
        "ENROUTE then DELIVRD"
    );

    c.submit("+33612345605", "b").await;
    let (_, id) = c.submit_resp().await;
    assert_eq!(
        c.receipts(2).await,
        vec![delivered(&id), delivered(&id)],
        "the same receipt twice"
    );

    c.submit("+33612345606", "c").await;
    let (_, id) = c.submit_resp().await;
    assert_eq!(
        c.receipts(2).await,
        vec![delivered(&id), enroute(&id)],
        "the intermediate arrives late"
    );

    c.submit("+33612345607", "d").await;
    let (_, id) = c.submit_resp().await;
    assert_eq!(
        c.receipts(2).await,
        vec![delivered(&id), undeliv(&id)],
        "incompatible finals"
    );
}

#[tokio::test]
async fn receipts_for_an_unknown_id_and_garbage() {
    let s = sandbox().await;
    let mut c = bound(&s).await;
    c.submit("+33612345608", "a").await;
    let (_, id) = c.submit_resp().await;
    let seen = c.receipts(1).await;
    assert_ne!(
        seen[0].id.as_deref(),
        Some(id.as_str()),
        "the receipt names an id never given out"
    );

    c.submit("+33612345609", "b").await;
    c.submit_resp().await;
    let seen = c.receipts(1).await;
    assert_eq!(
        (seen[0].id.clone(), seen[0].stat),
        (None, None),
        "nothing readable in it"
    );
}

#[tokio::test]
async fn a_receipt_can_arrive_before_the_submit_response() {
    let s = sandbox().await;
    let mut c = bound(&s).await;
    c.submit("+33612345610", "a").await;
    let first = c.next().await.unwrap();
    assert_eq!(first.id(), CommandId::DeliverSm, "the receipt comes first");
    let second = c.next().await.unwrap();
    assert_eq!(second.id(), CommandId::SubmitSmResp);
}

#[tokio::test]
async fn temporary_errors_refuse_the_first_try_only_and_invalid_destinations_always() {
    let s = sandbox().await;
    let mut c = bound(&s).await;
    for (dest, status) in [
        ("+33612345611", CommandStatus::EsmeRthrottled),
        ("+33612345612", CommandStatus::EsmeRmsgqful),
        ("+33612345614", CommandStatus::EsmeRsyserr),
    ] {
        c.submit(dest, "retry me").await;
        assert_eq!(c.submit_resp().await.0, status, "{dest}: first try");
        c.submit(dest, "retry me").await;
        assert_eq!(c.submit_resp().await.0, CommandStatus::EsmeRok, "{dest}: second try");
        c.receipts(1).await;
        let counts = s.counts(dest, b"retry me");
        assert_eq!((counts.submits, counts.accepted), (2, 1), "{dest}");
    }
    for _ in 0..2 {
        c.submit("+33612345613", "x").await;
        assert_eq!(c.submit_resp().await.0, CommandStatus::EsmeRinvdstadr);
    }
    assert_eq!(s.counts("+33612345613", b"x").accepted, 0);
}

#[tokio::test]
async fn no_response_and_dropped_connections() {
    let s = sandbox().await;
    let mut c = bound(&s).await;
    c.submit("+33612345615", "silence").await;
    assert!(c.next().await.is_none(), "no submit_sm_resp ever comes");
    assert_eq!(s.counts("+33612345615", b"silence").accepted, 0);
    drop(c);

    let mut c = bound(&s).await;
    c.submit("+33612345616", "cut").await;
    assert!(c.next().await.is_none(), "the connection drops before the answer");
    assert_eq!(s.counts("+33612345616", b"cut").accepted, 0);
    drop(c);

    let mut c = bound(&s).await;
    c.submit("+33612345617", "cut after").await;
    let (status, id) = c.submit_resp().await;
    assert_eq!(status, CommandStatus::EsmeRok);
    assert!(c.next().await.is_none(), "the connection drops after the answer");
    let mut again = bound(&s).await;
    assert_eq!(
        again.receipts(1).await,
        vec![delivered(&id)],
        "the receipt comes on the next session"
    );
}

#[tokio::test]
async fn the_response_id_in_hex_and_the_receipt_id_in_decimal_are_one_number() {
    let s = sandbox().await;
    let mut c = bound(&s).await;
    c.submit("+33612345618", "a").await;
    let (_, hex) = c.submit_resp().await;
    let seen = c.receipts(1).await;
    let decimal = seen[0].id.clone().unwrap();
    assert_ne!(hex, decimal);
    assert_eq!(u64::from_str_radix(&hex, 16).unwrap(), decimal.parse::<u64>().unwrap());
}

#[tokio::test]
async fn refused_binds_and_a_second_acceptance_are_visible() {
    let s = sandbox().await;
    s.refuse_binds(true);
    let mut c = Client::connect(&s).await;
    assert_eq!(c.bind().await, CommandStatus::EsmeRbindfail);
    assert!(c.next().await.is_none(), "a refused bind closes the connection");
    s.refuse_binds(false);

    let mut c = bound(&s).await;
    for _ in 0..2 {
        c.submit("+33612345699", "twice").await;
        c.submit_resp().await;
    }
    assert_eq!(
        s.accepted_twice(),
        vec![("+33612345699".to_owned(), b"twice".to_vec(), 2)]
    );
}

#[tokio::test]
async fn keepalive_and_unbind() {
    let s = sandbox().await;
    let mut c = bound(&s).await;
    c.send(Pdu::EnquireLink).await;
    assert_eq!(c.next().await.unwrap().id(), CommandId::EnquireLinkResp);
    c.send(Pdu::Unbind).await;
    assert_eq!(c.next().await.unwrap().id(), CommandId::UnbindResp);
    assert!(c.next().await.is_none(), "the sandbox closes after unbind");
}

/// A message from `from` to `to`.
fn mo(from: &str, to: &str, text: &str, style: MoStyle) -> Mo {
    Mo {
        from: from.into(),
        to: to.into(),
        text: text.into(),
        style,
    }
}

/// The TLVs of a deliver_sm, decoded.
fn tlvs(d: &DeliverSm) -> Vec<TlvValue> {
    d.tlvs().iter().filter_map(|t| t.value().cloned()).collect()
}

/// The text of a UCS-2 payload.
fn ucs2(octets: &[u8]) -> String {
    let units: Vec<u16> = octets.chunks(2).map(|c| u16::from_be_bytes([c[0], c[1]])).collect();
    String::from_utf16(&units).unwrap()
}

/// The concatenation header of a part (reference, total, index) and the payload after it.
fn udh(d: &DeliverSm) -> ((u8, u8, u8), Vec<u8>) {
    assert_eq!(u8::from(d.esm_class), 0x40, "UDHI set");
    match d.short_message().as_ref() {
        [0x05, 0x00, 0x03, reference, total, index, rest @ ..] => ((*reference, *total, *index), rest.to_vec()),
        other => panic!("no 8-bit concatenation header in {other:02x?}"),
    }
}

const CYRILLIC: &str = "Спасибо за напоминание. К сожалению, я не смогу прийти завтра утром, \
                        перезвоните мне, пожалуйста, после обеда.";

#[tokio::test]
async fn an_injected_mo_arrives_as_a_plain_gsm_deliver_sm_from_an_international_number() {
    let s = sandbox().await;
    let mut c = bound(&s).await;
    assert_eq!(
        s.inject_mo(mo("+33612345626", "SHOP", "Merci, à demain", MoStyle::Plain)),
        1
    );
    let [d] = <[DeliverSm; 1]>::try_from(c.deliver_sms(1).await).unwrap();
    assert_eq!(u8::from(d.esm_class), 0x00, "a message, not a receipt");
    assert_eq!(
        (d.source_addr_ton, d.source_addr_npi, d.source_addr.to_string()),
        (Ton::International, Npi::Isdn, "33612345626".to_owned())
    );
    assert_eq!(
        (d.dest_addr_ton, d.destination_addr.to_string()),
        (Ton::Alphanumeric, "SHOP".to_owned())
    );
    assert_eq!(u8::from(d.data_coding), 0x00);
    assert_eq!(d.short_message().as_ref(), b"Merci, \x7f demain", "GSM 7-bit, unpacked");
    assert!(tlvs(&d).is_empty());
}

#[tokio::test]
async fn a_text_outside_the_gsm_alphabet_arrives_in_ucs2() {
    let s = sandbox().await;
    let mut c = bound(&s).await;
    assert_eq!(s.inject_mo(mo("33612345628", "SHOP", "Arrêt", MoStyle::Plain)), 1);
    let d = &c.deliver_sms(1).await[0];
    assert_eq!((u8::from(d.data_coding), u8::from(d.esm_class)), (0x08, 0x00));
    assert_eq!(
        d.short_message().as_ref(),
        &[0x00, 0x41, 0x00, 0x72, 0x00, 0x72, 0x00, 0xEA, 0x00, 0x74]
    );
}

#[tokio::test]
async fn a_long_text_arrives_in_parts_joined_by_a_udh_in_order_or_reversed() {
    let s = sandbox().await;
    let mut c = bound(&s).await;
    for (style, order) in [(MoStyle::Plain, [1, 2]), (MoStyle::Reversed, [2, 1])] {
        assert_eq!(s.inject_mo(mo("+33612345627", "SHOP", CYRILLIC, style.clone())), 2);
        let parts = c.deliver_sms(2).await;
        let read: Vec<_> = parts.iter().map(udh).collect();
        let (reference, _, _) = read[0].0;
        let headers: Vec<_> = read.iter().map(|(h, _)| *h).collect();
        assert_eq!(
            headers,
            order.map(|i| (reference, 2, i)).to_vec(),
            "{style:?}: one reference, two parts"
        );
        assert!(parts
            .iter()
            .all(|d| u8::from(d.data_coding) == 0x08 && tlvs(d).is_empty()));
        let mut payloads: Vec<_> = read.into_iter().map(|((_, _, i), p)| (i, p)).collect();
        payloads.sort();
        let joined: Vec<u8> = payloads.into_iter().flat_map(|(_, p)| p).collect();
        assert_eq!(ucs2(&joined), CYRILLIC, "{style:?}");
    }
}

#[tokio::test]
async fn sar_style_joins_the_parts_by_tlvs_without_a_udh() {
    let s = sandbox().await;
    let mut c = bound(&s).await;
    assert_eq!(s.inject_mo(mo("+33612345627", "SHOP", CYRILLIC, MoStyle::Sar)), 2);
    let parts = c.deliver_sms(2).await;
    let reference = match tlvs(&parts[0]).first() {
        Some(TlvValue::SarMsgRefNum(r)) => *r,
        other => panic!("sar_msg_ref_num first, got {other:?}"),
    };
    for (d, index) in parts.iter().zip(1..) {
        assert_eq!(u8::from(d.esm_class), 0x00, "no UDHI");
        assert_eq!(
            tlvs(d),
            vec![
                TlvValue::SarMsgRefNum(reference),
                TlvValue::SarTotalSegments(2),
                TlvValue::SarSegmentSeqnum(index)
            ]
        );
    }
    let joined: Vec<u8> = parts.iter().flat_map(|d| d.short_message().as_ref().to_vec()).collect();
    assert_eq!(ucs2(&joined), CYRILLIC);
}

#[tokio::test]
async fn a_ticket_tlv_does_not_make_the_mo_a_receipt() {
    let s = sandbox().await;
    let mut c = bound(&s).await;
    let ticket = MoStyle::WithTicketTlv("T-4242".into());
    assert_eq!(s.inject_mo(mo("+33612345626", "SHOP", "STOP", ticket)), 1);
    let d = &c.deliver_sms(1).await[0];
    assert_eq!(u8::from(d.esm_class), 0x00);
    assert_eq!(tlvs(d), vec![TlvValue::ReceiptedMessageId(cstr("T-4242"))]);
    assert_eq!(d.short_message().as_ref(), b"STOP");
}

#[tokio::test]
async fn reply_scenarios_send_the_handsets_answer_after_the_receipt() {
    let s = sandbox().await;
    let mut c = bound(&s).await;
    c.submit("+33612345625", "Your appointment is tomorrow").await;
    let (_, id) = c.submit_resp().await;
    let got = c.deliver_sms(2).await;
    assert_eq!(
        read(got[0].esm_class.into(), got[0].short_message().as_ref()),
        delivered(&id),
        "the receipt first"
    );
    let reply = &got[1];
    assert_eq!(u8::from(reply.esm_class), 0x00);
    assert_eq!(
        (reply.source_addr_ton, reply.source_addr.to_string()),
        (Ton::International, "33612345625".to_owned()),
        "from the handset the message went to"
    );
    assert_eq!(reply.destination_addr.to_string(), "SHOP", "to the message's sender");
    assert_eq!(reply.short_message().as_ref(), b"STOP");

    c.submit("+33612345626", "b").await;
    c.submit_resp().await;
    let got = c.deliver_sms(2).await;
    assert_eq!(
        got[1].short_message().as_ref(),
        b"Je ne pourrai pas venir demain, merci de rappeler."
    );

    c.submit("+33612345627", "c").await;
    c.submit_resp().await;
    let got = c.deliver_sms(3).await;
    let joined: Vec<u8> = got[1..].iter().flat_map(|d| udh(d).1).collect();
    assert_eq!(ucs2(&joined), CYRILLIC);

    c.submit("+33612345628", "d").await;
    c.submit_resp().await;
    let got = c.deliver_sms(2).await;
    assert_eq!(u8::from(got[1].data_coding), 0x08);
    assert_eq!(ucs2(got[1].short_message().as_ref()), "Arrêt");
}

#[tokio::test]
async fn an_mo_waits_for_a_session_to_bind() {
    let s = sandbox().await;
    assert_eq!(s.inject_mo(mo("+33612345626", "SHOP", "STOP", MoStyle::Plain)), 1);
    let mut c = bound(&s).await;
    let d = &c.deliver_sms(1).await[0];
    assert_eq!(d.short_message().as_ref(), b"STOP");
}

#[tokio::test]
async fn the_standalone_sandbox_outlives_the_end_of_its_standard_input() {
    let config = SandboxConfig {
        port: 0,
        ..SandboxConfig::default()
    };
    let input = std::io::Cursor::new(b"mo +33612345626 hello\nbogus line\n\nmo-sar +336 Arr\xc3\xaat".to_vec());
    let started = std::time::Instant::now();
    let stop = tokio::time::sleep(Duration::from_millis(300));
    super::run_standalone(config, None, input, stop).await.unwrap();
    assert!(
        started.elapsed() >= Duration::from_millis(300),
        "ran until told to stop"
    );
}

#[tokio::test]
async fn a_submit_still_waiting_for_its_answer_when_the_sandbox_closes_is_neither_answered_nor_counted() {
    let s = Sandbox::start(SandboxConfig {
        response_delay: Duration::from_millis(300),
        ..SandboxConfig::default()
    })
    .await
    .unwrap();
    let mut c = bound(&s).await;
    c.submit("+33612345600", "late").await;
    // The submit is read and waits out its response delay when the sandbox closes.
    tokio::time::sleep(Duration::from_millis(100)).await;
    s.close();
    let (_, accepted_at_close, _) = s.totals();
    tokio::time::sleep(Duration::from_millis(400)).await;
    while let Some(cmd) = c.next().await {
        assert_ne!(cmd.id(), CommandId::SubmitSmResp, "answered after closing");
    }
    assert_eq!(accepted_at_close, 0);
    assert_eq!(s.totals(), (1, 0, 0), "the totals read at closing are final");
}
