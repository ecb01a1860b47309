//! The dispatch baseline: a bare SMPP client on rusmpp's codec, with nothing behind it (no
//! database, no queue), submitting the same N messages to the same sandbox SMSC process with the
//! same window, answering every deliver_sm, until every receipt arrived. What the link and the
//! SMSC allow on this machine; smsdesk's end-to-end rate is divided by it.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context, Result};
use futures::{SinkExt, StreamExt};
use rusmpp::pdus::{BindTransceiver, SubmitSm};
use rusmpp::tokio_codec::CommandCodec;
use rusmpp::types::{COctetString, OctetString};
use rusmpp::values::{DataCoding, EsmClass, InterfaceVersion, Npi, RegisteredDelivery, Ton};
use rusmpp::{Command, CommandId, CommandStatus, Pdu};
use tokio::net::TcpStream;
use tokio_util::codec::Framed;

use crate::check;
use crate::dispatch::finish;
use crate::figures::{figure, rate, say};
use crate::messages;
use crate::procs::{self, Sandbox};

#[derive(Debug, Clone)]
pub struct RawSmpp {
    pub smsdesk: PathBuf,
    pub work: PathBuf,
    /// Keep the run's directory (data, logs) even when its checks passed.
    pub keep: bool,
    pub n: usize,
    pub window: usize,
    pub receipt_delay_ms: u64,
}

pub(crate) type Wire = Framed<TcpStream, CommandCodec>;

/// A C-octet string of at most MAX - 1 bytes.
fn cstr<const MIN: usize, const MAX: usize>(s: &str) -> COctetString<MIN, MAX> {
    let mut bytes: Vec<u8> = s.bytes().filter(|b| *b != 0).take(MAX - 1).collect();
    bytes.push(0);
    COctetString::from_vec(bytes).unwrap_or_default()
}

/// Message `i` as smsdesk submits it: from an alphanumeric sender, to an international number,
/// GSM text, a final receipt requested.
fn submit(i: usize) -> SubmitSm {
    SubmitSm::builder()
        .source_addr_ton(Ton::Alphanumeric)
        .source_addr_npi(Npi::Unknown)
        .source_addr(cstr("smsdesk"))
        .dest_addr_ton(Ton::International)
        .dest_addr_npi(Npi::Isdn)
        .destination_addr(cstr(messages::destination(i).trim_start_matches('+')))
        // Set explicitly: rusmpp's default esm_class is 0x08 (a delivery acknowledgement).
        .esm_class(EsmClass::from(0x00))
        .registered_delivery(RegisteredDelivery::from(0x01))
        .data_coding(DataCoding::from(0x00))
        .short_message(OctetString::from_vec(messages::text(i).into_bytes()).unwrap_or_default())
        .build()
}

/// Binds as a transceiver to `addr` as `system_id` with `password`.
pub(crate) async fn bind(addr: &str, system_id: &str, password: &str) -> Result<Wire> {
    let stream = TcpStream::connect(addr)
        .await
        .context("connecting to the SMPP server")?;
    stream.set_nodelay(true)?;
    let mut wire = Framed::new(stream, CommandCodec::new());
    let bind = BindTransceiver::builder()
        .system_id(cstr(system_id))
        .password(cstr(password))
        .interface_version(InterfaceVersion::Smpp3_4)
        .build();
    wire.send(Command::new(CommandStatus::EsmeRok, 1, bind)).await?;
    match wire.next().await {
        Some(Ok(c)) if c.id() == CommandId::BindTransceiverResp && c.status() == CommandStatus::EsmeRok => Ok(wire),
        other => bail!("{addr} did not bind us: {other:?}"),
    }
}

/// When every submit was accepted, and when every receipt had arrived.
pub(crate) struct Times {
    pub accepted: Instant,
    pub receipted: Instant,
}

/// Keeps `window` submits awaiting their answer, answers deliver_sm, until `n` receipts came.
pub(crate) async fn pump(wire: &mut Wire, n: usize, window: usize) -> Result<Times> {
    let (mut next, mut awaiting, mut accepted, mut receipts) = (0usize, 0usize, 0usize, 0usize);
    let mut seq = 2u32;
    let mut accepted_at = None;
    while receipts < n {
        while awaiting < window && next < n {
            wire.feed(Command::new(CommandStatus::EsmeRok, seq, submit(next)))
                .await?;
            (seq, next, awaiting) = (seq + 1, next + 1, awaiting + 1);
        }
        SinkExt::<Command>::flush(wire).await?;
        let command = tokio::time::timeout(Duration::from_secs(30), wire.next())
            .await
            .map_err(|_| anyhow!("nothing from the sandbox for 30 s: {accepted} accepted, {receipts} receipts"))?
            .ok_or_else(|| anyhow!("the sandbox closed the connection"))??;
        let answer = match command.pdu() {
            Some(Pdu::SubmitSmResp(_)) => {
                awaiting -= 1;
                if command.status() != CommandStatus::EsmeRok {
                    bail!("a submit was refused: {:?}", command.status());
                }
                accepted += 1;
                if accepted == n {
                    accepted_at = Some(Instant::now());
                }
                None
            }
            Some(Pdu::DeliverSm(d)) => {
                receipts += usize::from(u8::from(d.esm_class) & 0x3C == 0x04);
                Some(Pdu::DeliverSmResp(Default::default()))
            }
            Some(Pdu::EnquireLink) => Some(Pdu::EnquireLinkResp),
            _ => None,
        };
        if let Some(pdu) = answer {
            wire.feed(Command::new(CommandStatus::EsmeRok, command.sequence_number(), pdu))
                .await?;
        }
    }
    SinkExt::<Command>::flush(wire).await?;
    let receipted = Instant::now();
    Ok(Times {
        accepted: accepted_at.unwrap_or(receipted),
        receipted,
    })
}

pub async fn run(r: &RawSmpp) -> Result<()> {
    let dir = r.work.join("smpp-raw");
    procs::fresh_dir(&dir)?;
    let sandbox = Sandbox::start(&r.smsdesk, &dir, r.receipt_delay_ms)?;
    let mut wire = bind(&format!("127.0.0.1:{}", sandbox.port), "bench", "").await?;
    say(&format!(
        "smpp-raw: {} messages, window {}, bare rusmpp client",
        r.n, r.window
    ));
    let started = Instant::now();
    let times = pump(&mut wire, r.n, r.window.max(1)).await?;
    let _ = wire
        .send(Command::new(CommandStatus::EsmeRok, u32::MAX >> 1, Pdu::Unbind))
        .await;
    drop(wire);
    check::sandbox_saw_each_once(sandbox.stop()?, r.n)?;
    figure("smpp_raw.per_s", rate(r.n, times.receipted - started));
    figure("smpp_raw.accept_per_s", rate(r.n, times.accepted - started));
    say(&format!(
        "smpp-raw: all receipts in {:.2} s",
        (times.receipted - started).as_secs_f64()
    ));
    finish(&dir, r.keep);
    Ok(())
}
