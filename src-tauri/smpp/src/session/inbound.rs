//! What a bound link does with each PDU the SMSC sends, and how inbound reports are stored in
//! the order they arrived and acknowledged only once committed.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use rusmpp::encode::Encode;
use rusmpp::tlvs::Tlv as SmppTlv;
use rusmpp::{Command, CommandId, CommandStatus, Pdu};
use tokio::sync::mpsc;
use tokio::time::Instant;

use smsdesk_core::time::Clock;

use super::{Link, LinkEnd, SessionConfig};
use crate::{SmppReceived, Tlv};

/// Where inbound reports go. The session hands them over in the order their PDUs arrived, a batch
/// at a time, and hands over the next batch only once this one is answered: reports of one
/// session are stored in arrival order. `deliver` answers, for each report of the batch, whether
/// it is durably stored; only then is it acknowledged to the SMSC (false answers ESME_RX_T_APPN so
/// the SMSC sends it again).
pub trait InboundHandler: Send + Sync + 'static {
    fn deliver(&self, reports: Vec<SmppReceived>) -> Pin<Box<dyn Future<Output = Vec<bool>> + Send + '_>>;
}

/// How long the end of a session waits for the reports it read to be stored.
pub(super) const STORE_ARRIVED_FOR: Duration = Duration::from_secs(10);

/// Reports stored in one writer operation at most.
const ARRIVALS_PER_BATCH: usize = 1_024;

/// A deliver_sm or data_sm as read off the link, waiting to be stored and acknowledged.
pub(super) struct Arrival {
    report: SmppReceived,
    sequence_number: u32,
    data_sm: bool,
}

/// Stores reports in the order they arrived, a batch at a time, and acknowledges each once it is
/// committed.
pub(super) async fn store_in_order(
    inbound: Arc<dyn InboundHandler>,
    mut arrived: mpsc::UnboundedReceiver<Arrival>,
    link: Link,
) {
    let mut batch = Vec::new();
    while arrived.recv_many(&mut batch, ARRIVALS_PER_BATCH).await > 0 {
        let acks: Vec<(u32, bool)> = batch.iter().map(|a| (a.sequence_number, a.data_sm)).collect();
        let reports = batch.drain(..).map(|a| a.report).collect();
        let stored = inbound.deliver(reports).await;
        for (i, (seq, data_sm)) in acks.into_iter().enumerate() {
            link.send(acknowledgement(stored.get(i).copied().unwrap_or(false), seq, data_sm));
        }
    }
}

/// The answer to a report: ESME_ROK once it is stored, ESME_RX_T_APPN (send it again) if not.
fn acknowledgement(stored: bool, seq: u32, data_sm: bool) -> Command {
    let status = if stored {
        CommandStatus::EsmeRok
    } else {
        CommandStatus::EsmeRxTAppn
    };
    let pdu = if data_sm {
        Pdu::DataSmResp(Default::default())
    } else {
        Pdu::DeliverSmResp(Default::default())
    };
    Command::new(status, seq, pdu)
}

/// What a bound link does with each PDU the SMSC sends.
pub(super) struct Incoming<'a> {
    connection: &'a str,
    clock: &'a Clock,
    link: &'a Link,
    arrivals: &'a mpsc::UnboundedSender<Arrival>,
    /// Reports read on this session so far: the next one's arrival position.
    arrived: u64,
    /// The enquire_link sent and not answered yet: its sequence number and when it went out.
    pub(super) awaiting_keepalive: Option<(u32, Instant)>,
}

impl<'a> Incoming<'a> {
    /// Nothing read yet on `link`; reports go to `arrivals`.
    pub(super) fn new(config: &'a SessionConfig, link: &'a Link, arrivals: &'a mpsc::UnboundedSender<Arrival>) -> Self {
        Incoming {
            connection: &config.connection,
            clock: &config.clock,
            link,
            arrivals,
            arrived: 0,
            awaiting_keepalive: None,
        }
    }

    /// Handles one PDU; says when it ends the link (the SMSC unbound).
    pub(super) fn on(&mut self, command: Command) -> Option<LinkEnd> {
        let seq = command.sequence_number();
        match command.id() {
            CommandId::EnquireLinkResp => {
                if self.awaiting_keepalive.is_some_and(|(s, _)| s == seq) {
                    self.awaiting_keepalive = None;
                }
            }
            CommandId::EnquireLink => {
                self.link
                    .send(Command::new(CommandStatus::EsmeRok, seq, Pdu::EnquireLinkResp));
            }
            CommandId::Unbind => {
                self.link
                    .send(Command::new(CommandStatus::EsmeRok, seq, Pdu::UnbindResp));
                return Some(LinkEnd::Lost("the SMSC unbound".into()));
            }
            CommandId::DeliverSm | CommandId::DataSm => self.on_report(command),
            _ => self.on_answer(command),
        }
        None
    }

    /// A deliver_sm or data_sm: numbered in arrival order and handed to the task storing them.
    fn on_report(&mut self, command: Command) {
        self.arrived += 1;
        let report = received(
            self.connection,
            &self.link.session_id,
            self.arrived,
            &command,
            self.clock.now_ms(),
        );
        let arrival = Arrival {
            report,
            sequence_number: command.sequence_number(),
            data_sm: command.id() == CommandId::DataSm,
        };
        // The task storing them ends only after this sender is dropped.
        let _ = self.arrivals.send(arrival);
    }

    /// An answer: to whoever waits for it, if anyone still does.
    fn on_answer(&self, command: Command) {
        let seq = command.sequence_number();
        match self.link.pending.lock().unwrap_or_else(|p| p.into_inner()).remove(&seq) {
            Some(waiter) => {
                let _ = waiter.send(command);
            }
            None => tracing::warn!(seq, id = ?command.id(), "an answer nobody waits for (late after a timeout?)"),
        }
    }
}

/// A TLV as the receipt log keeps it: its tag and its value's bytes as they were encoded.
pub fn raw_tlv(tlv: &SmppTlv) -> Tlv {
    let value = tlv.value().map(|v| {
        let mut buf = vec![0u8; rusmpp::encode::Length::length(v)];
        v.encode(&mut buf);
        buf
    });
    Tlv {
        tag: u16::from(tlv.tag()),
        value: value.unwrap_or_default(),
    }
}

/// The report as the receipt log keeps it.
fn received(connection: &str, session_id: &str, arrival_no: u64, command: &Command, now_ms: i64) -> SmppReceived {
    let mut r = SmppReceived {
        connection: connection.into(),
        session_id: Some(session_id.into()),
        sequence_number: Some(command.sequence_number()),
        arrival_no: Some(arrival_no),
        received_at: now_ms,
        ..SmppReceived::default()
    };
    match command.pdu() {
        Some(Pdu::DeliverSm(d)) => {
            r.esm_class = Some(d.esm_class.into());
            r.data_coding = Some(d.data_coding.into());
            r.source_addr = Some(d.source_addr.to_string());
            r.source_addr_ton = Some(d.source_addr_ton.into());
            r.destination_addr = Some(d.destination_addr.to_string());
            r.short_message = d.short_message().as_ref().to_vec();
            r.tlvs = d.tlvs().iter().map(raw_tlv).collect();
        }
        Some(Pdu::DataSm(d)) => {
            r.data_sm = true;
            r.esm_class = Some(d.esm_class.into());
            r.data_coding = Some(d.data_coding.into());
            r.source_addr = Some(d.source_addr.to_string());
            r.source_addr_ton = Some(d.source_addr_ton.into());
            r.destination_addr = Some(d.destination_addr.to_string());
            r.tlvs = d.tlvs().iter().map(raw_tlv).collect();
        }
        _ => {}
    }
    r
}
