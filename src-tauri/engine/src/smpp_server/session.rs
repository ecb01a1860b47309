//! One client's connection to the SMPP server: its bind (the account's password, checked as a
//! sign-in is), then its requests until it unbinds or goes: submits within its rate and window,
//! queries and cancels of its own messages, keepalives, and the receipts owed to it while it is
//! bound to receive them.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::{SinkExt, StreamExt};
use rusmpp::pdus::{BindReceiverResp, BindTransceiverResp, BindTransmitterResp, QuerySmResp, SubmitSmResp};
use rusmpp::tokio_codec::CommandCodec;
use rusmpp::values::MessageState;
use rusmpp::{Command, CommandStatus, Pdu};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::mpsc;
use tokio_util::codec::Framed;

use super::outbox::{self, Ack};
use super::submit::{self, Joined, Parts, Read};
use super::{Ctx, Stats};
use crate::guardrails::GuardrailReason;
use crate::service::{BindRefused, ServiceError, SmppBound};
use crate::smpp::cstr;
use crate::smpp::session::BindRole;
use crate::store::tables::smpp as table;

/// How long a connection may stay unbound, and a TLS handshake take.
pub(super) const BIND_TIMEOUT: Duration = Duration::from_secs(30);
/// The system_id the server answers binds with.
const SERVER_ID: &str = "smsdesk";

/// Serves one connection until the client unbinds or goes, or the server stops.
pub(super) async fn run<S>(stream: S, peer: SocketAddr, tls: bool, ctx: Arc<Ctx>)
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let (mut sink, mut source) = Framed::new(stream, CommandCodec::new()).split();
    let (out, mut outgoing) = mpsc::unbounded_channel::<Command>();
    let writer = tokio::spawn(async move {
        while let Some(c) = outgoing.recv().await {
            if sink.send(c).await.is_err() {
                break;
            }
        }
        let _ = sink.close().await;
    });
    let bound = tokio::select! {
        b = bind(&mut source, &out, peer, &ctx) => b,
        _ = tokio::time::sleep(BIND_TIMEOUT) => None,
        _ = ctx.stop.cancelled() => None,
    };
    if let Some((account, role)) = bound {
        let now = ctx.service.clock().now_ms();
        let stats = ctx.registry.bound(&account.caller.submitter(), role, peer, tls, now);
        tracing::info!(account = %account.caller.submitter(), %peer, ?role, tls, "an SMPP client bound");
        let mut session = Session::new(ctx.clone(), out.clone(), account, role, stats.clone());
        session.serve(&mut source).await;
        ctx.registry.ended(stats.id);
        tracing::info!(%peer, "an SMPP client's session ended");
    }
    drop(out);
    let _ = writer.await;
}

/// Reads PDUs until a bind, answering keepalives; the account and role bound, or None when the
/// bind was refused or the client went.
async fn bind<Src>(
    source: &mut Src,
    out: &mpsc::UnboundedSender<Command>,
    peer: SocketAddr,
    ctx: &Ctx,
) -> Option<(SmppBound, BindRole)>
where
    Src: futures::Stream<Item = Result<Command, rusmpp::tokio_codec::DecodeError>> + Unpin,
{
    loop {
        let command = source.next().await?.ok()?;
        let seq = command.sequence_number();
        let (role, system_id, password) = match command.pdu() {
            Some(Pdu::BindTransceiver(b)) => (BindRole::Transceiver, b.system_id.to_string(), b.password.to_string()),
            Some(Pdu::BindTransmitter(b)) => (BindRole::Transmitter, b.system_id.to_string(), b.password.to_string()),
            Some(Pdu::BindReceiver(b)) => (BindRole::Receiver, b.system_id.to_string(), b.password.to_string()),
            Some(Pdu::EnquireLink) => {
                let _ = out.send(Command::new(CommandStatus::EsmeRok, seq, Pdu::EnquireLinkResp));
                continue;
            }
            _ => {
                let _ = out.send(Command::new(CommandStatus::EsmeRinvbndsts, seq, Pdu::GenericNack));
                continue;
            }
        };
        let checked = ctx
            .service
            .smpp_bind(&system_id, password, &peer.ip().to_string())
            .await;
        let status = match &checked {
            Ok(_) => CommandStatus::EsmeRok,
            Err(BindRefused::WrongPassword) => CommandStatus::EsmeRinvpaswd,
            Err(BindRefused::TryLater) => CommandStatus::EsmeRbindfail,
        };
        let id = || cstr(SERVER_ID);
        let resp = match role {
            BindRole::Transceiver => Pdu::BindTransceiverResp(BindTransceiverResp::new(id(), None)),
            BindRole::Transmitter => Pdu::BindTransmitterResp(BindTransmitterResp::new(id(), None)),
            BindRole::Receiver => Pdu::BindReceiverResp(BindReceiverResp::new(id(), None)),
        };
        let _ = out.send(Command::new(status, seq, resp));
        return match checked {
            Ok(account) => Some((account, role)),
            Err(why) => {
                tracing::info!(%system_id, %peer, ?why, "an SMPP bind was refused");
                None
            }
        };
    }
}

/// A bound session.
struct Session {
    ctx: Arc<Ctx>,
    out: mpsc::UnboundedSender<Command>,
    account: SmppBound,
    role: BindRole,
    stats: Arc<Stats>,
    rate: Rate,
    in_flight: Arc<AtomicUsize>,
    parts: Parts,
    acks: Option<mpsc::UnboundedSender<Ack>>,
    /// The API keys' version its account was last found live at.
    keys_seen: u64,
}

impl Session {
    fn new(
        ctx: Arc<Ctx>,
        out: mpsc::UnboundedSender<Command>,
        account: SmppBound,
        role: BindRole,
        stats: Arc<Stats>,
    ) -> Session {
        let rate = Rate::new(account.tps);
        let keys_seen = ctx.store.keys_version().get();
        Session {
            keys_seen,
            ctx,
            out,
            account,
            role,
            stats,
            rate,
            in_flight: Arc::default(),
            parts: Parts::default(),
            acks: None,
        }
    }

    async fn serve<Src>(&mut self, source: &mut Src)
    where
        Src: futures::Stream<Item = Result<Command, rusmpp::tokio_codec::DecodeError>> + Unpin,
    {
        let pusher = match self.role != BindRole::Transmitter {
            true => {
                let (acks, heard) = mpsc::unbounded_channel();
                self.acks = Some(acks);
                let key = self.account.caller.api_key_id().unwrap_or_default();
                Some(tokio::spawn(outbox::push(
                    self.ctx.clone(),
                    key,
                    self.out.clone(),
                    heard,
                    self.account.window as usize,
                    self.stats.clone(),
                )))
            }
            false => None,
        };
        let mut sweep = tokio::time::interval(Duration::from_secs(5));
        loop {
            tokio::select! {
                incoming = source.next() => match incoming {
                    Some(Ok(command)) => {
                        if !self.on(command).await {
                            break;
                        }
                    }
                    Some(Err(e)) => {
                        tracing::info!(error = %e, "an SMPP client sent what cannot be read; closing");
                        break;
                    }
                    None => break,
                },
                _ = sweep.tick() => self.sweep(),
                _ = self.ctx.stop.cancelled() => {
                    let _ = self.out.send(Command::new(CommandStatus::EsmeRok, 1, Pdu::Unbind));
                    break;
                }
            }
        }
        if let Some(p) = pusher {
            p.abort();
        }
    }

    /// Whether its account is still live: read again only after the API keys changed. A revoked
    /// account's session ends at its next request.
    async fn still_live(&mut self) -> bool {
        let now = self.ctx.store.keys_version().get();
        if now == self.keys_seen {
            return true;
        }
        let (name, id) = (self.account.caller.submitter(), self.account.caller.api_key_id());
        let found = self.ctx.store.reader().read(move |c| table::account(c, &name)).await;
        match found {
            Ok(Some(a)) if Some(a.key.id) == id => {
                self.keys_seen = now;
                true
            }
            Ok(_) => false,
            // Unknown for now: the request is refused as the store's trouble, not the account's.
            Err(_) => true,
        }
    }

    /// Handles one PDU; false once the session ends.
    async fn on(&mut self, command: Command) -> bool {
        let seq = command.sequence_number();
        let asks = matches!(
            command.pdu(),
            Some(Pdu::SubmitSm(_) | Pdu::QuerySm(_) | Pdu::CancelSm(_))
        );
        if asks && !self.still_live().await {
            tracing::info!(account = %self.account.caller.submitter(), "an SMPP session ends: its account was revoked");
            self.answer(CommandStatus::EsmeRinvbndsts, seq, Pdu::GenericNack);
            let _ = self.out.send(Command::new(CommandStatus::EsmeRok, 1, Pdu::Unbind));
            return false;
        }
        match command.pdu() {
            Some(Pdu::SubmitSm(s)) => self.submit(seq, s),
            Some(Pdu::QuerySm(q)) => {
                let id = q.message_id.to_string();
                self.query(seq, id).await
            }
            Some(Pdu::CancelSm(c)) => {
                let id = c.message_id.to_string();
                self.cancel(seq, id).await
            }
            Some(Pdu::EnquireLink) => self.answer(CommandStatus::EsmeRok, seq, Pdu::EnquireLinkResp),
            Some(Pdu::Unbind) => {
                self.answer(CommandStatus::EsmeRok, seq, Pdu::UnbindResp);
                return false;
            }
            Some(Pdu::DeliverSmResp(_)) => {
                if let Some(acks) = &self.acks {
                    let _ = acks.send(Ack {
                        sequence_number: seq,
                        ok: command.status() == CommandStatus::EsmeRok,
                    });
                }
            }
            Some(Pdu::EnquireLinkResp | Pdu::GenericNack | Pdu::UnbindResp) => {}
            Some(Pdu::BindTransceiver(_) | Pdu::BindTransmitter(_) | Pdu::BindReceiver(_)) => {
                self.answer(CommandStatus::EsmeRalybnd, seq, Pdu::GenericNack)
            }
            _ => self.answer(CommandStatus::EsmeRinvcmdid, seq, Pdu::GenericNack),
        }
        true
    }

    fn answer(&self, status: CommandStatus, seq: u32, pdu: impl Into<Pdu>) {
        let _ = self.out.send(Command::new(status, seq, pdu));
    }

    fn refuse_submit(&self, status: CommandStatus, seq: u32) {
        self.stats.refused();
        self.answer(status, seq, SubmitSmResp::builder().build());
    }

    /// A submit: refused at once when the session is over its rate or window, or cannot be read;
    /// a part of a long message waits for the others; a whole message is handed in on a task of
    /// its own and answered once committed.
    fn submit(&mut self, seq: u32, submit: &rusmpp::pdus::SubmitSm) {
        if self.role == BindRole::Receiver {
            return self.refuse_submit(CommandStatus::EsmeRinvbndsts, seq);
        }
        let now = self.ctx.service.clock().now_ms();
        if self.in_flight.load(Ordering::Relaxed) >= self.account.window as usize || !self.rate.take(Instant::now()) {
            return self.refuse_submit(CommandStatus::EsmeRthrottled, seq);
        }
        let read = match submit::read(submit, &self.account.kinds, now) {
            Ok(r) => r,
            Err(status) => return self.refuse_submit(status, seq),
        };
        let joined = match read.part {
            None => Joined {
                read,
                sequence_numbers: vec![seq],
            },
            // Parts wait in memory: a session holds so many at most.
            Some(_) if self.parts.held() >= submit::MAX_PARTS_HELD => {
                return self.refuse_submit(CommandStatus::EsmeRmsgqful, seq)
            }
            Some(_) => match self.parts.add(seq, read, now) {
                Some(joined) => joined,
                None => return,
            },
        };
        self.hand_in(joined);
    }

    fn hand_in(&self, Joined { read, sequence_numbers }: Joined) {
        let Read { message, receipt, .. } = read;
        let (service, caller, out, stats) = (
            self.ctx.service.clone(),
            self.account.caller.clone(),
            self.out.clone(),
            self.stats.clone(),
        );
        let in_flight = self.in_flight.clone();
        in_flight.fetch_add(1, Ordering::Relaxed);
        tokio::spawn(async move {
            let destination = message.destination.clone();
            let done = service.smpp_submit(&caller, message, receipt).await;
            let (status, id) = match done {
                Ok(id) => {
                    stats.submitted(service.clock().now_ms());
                    (CommandStatus::EsmeRok, id.to_string())
                }
                Err(e) => {
                    stats.refused();
                    let status = refusal(&e);
                    // Which fields, never their values (a number is personal data).
                    let fields: Vec<String> = match &e {
                        ServiceError::Invalid(errors) => errors
                            .iter()
                            .map(|f| format!("{} {}", f.field, f.code.as_str()))
                            .collect(),
                        _ => Vec::new(),
                    };
                    tracing::info!(account = %caller.submitter(), ?status, ?fields, "an SMPP submit was refused");
                    if matches!(e, ServiceError::OptedOut(_)) {
                        service.smpp_refused(&caller, &destination).await;
                    }
                    (status, String::new())
                }
            };
            for seq in sequence_numbers {
                let resp = SubmitSmResp::builder().message_id(cstr(&id)).build();
                let _ = out.send(Command::new(status, seq, resp));
            }
            in_flight.fetch_sub(1, Ordering::Relaxed);
        });
    }

    /// Refuses the parts that waited too long for the rest of their message.
    fn sweep(&mut self) {
        let now = self.ctx.service.clock().now_ms();
        for seq in self.parts.expired(now) {
            self.refuse_submit(CommandStatus::EsmeRsubmitfail, seq);
        }
    }

    async fn query(&self, seq: u32, id: String) {
        let found = self.own(&id).await;
        let Some(detail) = found else {
            return self.answer(CommandStatus::EsmeRqueryfail, seq, QuerySmResp::builder().build());
        };
        let (state, final_at) = outbox::state_of(&detail);
        let final_date = final_at.map(outbox::smpp_time).unwrap_or_default();
        let resp = QuerySmResp::builder()
            .message_id(cstr(&id))
            .final_date(
                rusmpp::types::EmptyOrFullCOctetString::from_vec(format!("{final_date}\0").into_bytes())
                    .unwrap_or_default(),
            )
            .message_state(state)
            .error_code(0)
            .build();
        self.answer(CommandStatus::EsmeRok, seq, resp);
    }

    async fn cancel(&self, seq: u32, id: String) {
        let status = match self.own(&id).await {
            Some(detail) if outbox::state_of(&detail).0 == MessageState::Scheduled => {
                match self
                    .ctx
                    .service
                    .smpp_cancel(&self.account.caller, detail.summary.id)
                    .await
                {
                    Ok(()) => CommandStatus::EsmeRok,
                    Err(_) => CommandStatus::EsmeRcancelfail,
                }
            }
            _ => CommandStatus::EsmeRcancelfail,
        };
        self.answer(status, seq, Pdu::CancelSmResp);
    }

    /// The account's own message `id`, handed in over SMPP (none for another's, or an id that is
    /// not one).
    async fn own(&self, id: &str) -> Option<crate::views::MessageDetail> {
        let id: i64 = id.trim().parse().ok()?;
        let key = self.account.caller.api_key_id()?;
        let owner = self
            .ctx
            .store
            .reader()
            .read(move |c| crate::store::tables::smpp::owner(c, id))
            .await
            .ok()??;
        if owner != key {
            return None;
        }
        self.ctx.service.message(&self.account.caller, id).await.ok()
    }
}

/// The command_status a refused submit gets.
fn refusal(e: &ServiceError) -> CommandStatus {
    match e {
        ServiceError::OptedOut(_) | ServiceError::DestinationNotAllowed(_) => CommandStatus::EsmeRinvdstadr,
        ServiceError::RateLimited { .. } => CommandStatus::EsmeRmsgqful,
        e if e.is_storage_full() => CommandStatus::EsmeRmsgqful,
        ServiceError::Refused(r) => match r.reason {
            GuardrailReason::VelocityLimit => CommandStatus::EsmeRthrottled,
            // Over its budget for the day or month: nothing more is taken until then.
            GuardrailReason::SpendLimit => CommandStatus::EsmeRmsgqful,
            GuardrailReason::CountryNotAllowed | GuardrailReason::UnusualVolume => CommandStatus::EsmeRinvdstadr,
        },
        ServiceError::Invalid(errors) if errors.iter().any(|f| f.field.ends_with("destination")) => {
            CommandStatus::EsmeRinvdstadr
        }
        ServiceError::Invalid(errors) if errors.iter().any(|f| f.field.ends_with("valid_until")) => {
            CommandStatus::EsmeRinvexpiry
        }
        ServiceError::Invalid(errors) if errors.iter().any(|f| f.field.ends_with("scheduled_at")) => {
            CommandStatus::EsmeRinvsched
        }
        ServiceError::Invalid(errors) if errors.iter().any(|f| f.field.ends_with("text")) => {
            CommandStatus::EsmeRinvmsglen
        }
        ServiceError::Invalid(_) => CommandStatus::EsmeRsubmitfail,
        _ => CommandStatus::EsmeRsyserr,
    }
}

/// A session's rate: a bucket of `tps` submits, refilled at `tps` a second.
struct Rate {
    tps: f64,
    tokens: f64,
    at: Instant,
}

impl Rate {
    fn new(tps: u32) -> Rate {
        let tps = f64::from(tps.max(1));
        Rate {
            tps,
            tokens: tps,
            at: Instant::now(),
        }
    }

    /// Takes one submit's token, if there is one.
    fn take(&mut self, now: Instant) -> bool {
        let elapsed = now.saturating_duration_since(self.at).as_secs_f64();
        self.at = now;
        self.tokens = (self.tokens + elapsed * self.tps).min(self.tps);
        match self.tokens >= 1.0 {
            true => {
                self.tokens -= 1.0;
                true
            }
            false => false,
        }
    }
}

#[cfg(test)]
mod rate_tests {
    use super::*;

    #[test]
    fn a_rate_lets_a_second_of_submits_through_then_refills_at_its_pace() {
        let start = Instant::now();
        let mut r = Rate::new(5);
        assert_eq!((0..10).filter(|_| r.take(start)).count(), 5);
        assert!(!r.take(start + Duration::from_millis(100)));
        assert!(r.take(start + Duration::from_millis(200)), "one token back after 1/5 s");
        assert!(!r.take(start + Duration::from_millis(200)));
    }
}
