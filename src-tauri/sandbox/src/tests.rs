//! The sandbox over real TCP, driven by a bare SMPP client on rusmpp's codec: one test per
//! scenario, each checking what went over the wire and what the sandbox counted.

use std::time::Duration;

use futures::{SinkExt, StreamExt};
use rusmpp::pdus::{BindTransceiver, SubmitSm};
use rusmpp::tokio_codec::CommandCodec;
use rusmpp::types::OctetString;
use rusmpp::values::{EsmClass, InterfaceVersion, RegisteredDelivery};
use rusmpp::{Command, CommandId, CommandStatus, Pdu};
use tokio::net::TcpStream;
use tokio_util::codec::Framed;

use super::{Sandbox, SandboxConfig};
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
        let mut seen = Vec::new();
        while seen.len() < how_many {
            let c = self
                .next()
                .await
                .unwrap_or_else(|| panic!("expected {how_many} receipts, got {seen:?}"));
            if let Some(Pdu::DeliverSm(d)) = c.pdu() {
                seen.push(read(d.esm_class.into(), d.short_message().as_ref()));
                let resp = Command::new(
                    CommandStatus::EsmeRok,
                    c.sequence_number(),
                    Pdu::DeliverSmResp(Default::default()),
                );
                self.framed.send(resp).await.unwrap();
            }
        }
        seen
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
