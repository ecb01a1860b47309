//! The sandbox SMSC: an SMPP server on loopback that behaves like a real provider, and like the
//! bad days of real providers, so that smsdesk does something real on first run and its tests can
//! drive every scenario over TCP. No SMS ever leaves it.
//!
//! The scenario of a message is chosen by the last two digits of its destination (see
//! [`Scenario::for_destination`]); anything else is delivered. The sandbox counts submits and
//! acceptances per destination and content, so a test can prove that nothing was accepted twice.
//!
//! It also plays the handsets: [`Sandbox::inject_mo`] sends a reply (a mobile-originated
//! message, MO) to the bound client, and the reply scenarios send one after the receipt.

mod cstr;
mod mo;
mod receipt;
mod scenario;
mod session;
#[cfg(test)]
mod tests;
mod tls;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rusmpp::Command;
use tokio::net::TcpListener;
use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;

pub use mo::{Mo, MoStyle};
pub use scenario::Scenario;
pub use tls::{SandboxCa, SandboxTls};

/// How the sandbox behaves.
#[derive(Debug, Clone)]
pub struct SandboxConfig {
    /// Loopback port; 0 picks a free one.
    pub port: u16,
    /// How long after acceptance a receipt is sent.
    pub receipt_delay: Duration,
    /// The system_id the sandbox answers binds with.
    pub system_id: String,
    /// When set, a bind with another password is refused with ESME_RINVPASWD.
    pub password: Option<String>,
    /// How long the sandbox takes to answer each submit (a slow SMSC).
    pub response_delay: Duration,
    /// The message id it gives the first submit it accepts (then counts up), in hex in its
    /// answers: an SMSC started again may give out the ids of its earlier run, or not.
    pub first_id: u64,
    /// When set, a second port serves SMPP over TLS with this certificate.
    pub tls: Option<SandboxTls>,
}

/// The first message id a sandbox gives by default.
pub const FIRST_ID: u64 = 0x1000_0000;

impl Default for SandboxConfig {
    fn default() -> Self {
        SandboxConfig {
            port: 0,
            receipt_delay: Duration::from_millis(50),
            system_id: "sandbox".into(),
            password: None,
            response_delay: Duration::ZERO,
            first_id: FIRST_ID,
            tls: None,
        }
    }
}

/// What the sandbox saw for one destination and content.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// submit_sm PDUs received.
    pub submits: u32,
    /// submit_sm_resp sent with ESME_ROK.
    pub accepted: u32,
}

/// State shared by the listener and every session.
pub(crate) struct Shared {
    config: SandboxConfig,
    counts: Mutex<HashMap<(String, Vec<u8>), Counts>>,
    next_id: AtomicU64,
    refuse_binds: AtomicBool,
    binds: AtomicU64,
    /// Receivers of bound sessions that take deliver_sm, by session number.
    receivers: Mutex<HashMap<u64, mpsc::UnboundedSender<Command>>>,
    /// deliver_sm waiting for a bound session (sent when one binds).
    pending: Mutex<Vec<Command>>,
    /// Tells sessions to drop their connections.
    drop_all: watch::Sender<u64>,
    /// The reference of the next long MO, which ties its parts together.
    mo_reference: AtomicU8,
    /// Set (under the counts' lock) once the sandbox closes: nothing is accepted after, so the
    /// totals read then are final.
    closed: AtomicBool,
    /// Connections accepted on the clear port and on the TLS port.
    clear_connections: AtomicU64,
    tls_connections: AtomicU64,
}

impl Shared {
    fn count_submit(&self, destination: &str, content: &[u8]) {
        let mut counts = self.counts.lock().unwrap_or_else(|p| p.into_inner());
        counts
            .entry((destination.to_owned(), content.to_owned()))
            .or_default()
            .submits += 1;
    }

    /// Counts an acceptance, unless the sandbox has closed; says whether it did (a submit that
    /// is not counted is not answered either).
    fn count_accepted(&self, destination: &str, content: &[u8]) -> bool {
        let mut counts = self.counts.lock().unwrap_or_else(|p| p.into_inner());
        if self.closed.load(Ordering::Relaxed) {
            return false;
        }
        counts
            .entry((destination.to_owned(), content.to_owned()))
            .or_default()
            .accepted += 1;
        true
    }

    /// From now on nothing is accepted.
    fn close(&self) {
        let _counts = self.counts.lock().unwrap_or_else(|p| p.into_inner());
        self.closed.store(true, Ordering::Relaxed);
    }

    fn message_id(&self) -> u64 {
        self.next_id.fetch_add(1, Ordering::Relaxed)
    }

    /// Hands a deliver_sm to a bound session, or keeps it until one binds.
    fn deliver(&self, command: Command) {
        let receivers = self.receivers.lock().unwrap_or_else(|p| p.into_inner());
        let mut command = Some(command);
        for tx in receivers.values() {
            match tx.send(command.take().expect("still held")) {
                Ok(()) => return,
                Err(mpsc::error::SendError(back)) => command = Some(back),
            }
        }
        drop(receivers);
        if let Some(c) = command {
            self.pending.lock().unwrap_or_else(|p| p.into_inner()).push(c);
        }
    }

    /// Whether a bound session takes deliver_sm now.
    fn has_receiver(&self) -> bool {
        !self.receivers.lock().unwrap_or_else(|p| p.into_inner()).is_empty()
    }

    /// The deliver_sm PDUs of an MO, its parts tied by a reference of their own.
    fn mo_pdus(&self, mo: &Mo) -> Vec<Command> {
        let reference = self.mo_reference.fetch_add(1, Ordering::Relaxed);
        mo::deliver_sms(mo, reference)
    }

    fn schedule(self: &Arc<Self>, delay: Duration, command: Command) {
        self.schedule_all(delay, vec![command]);
    }

    /// Sends the commands one right after the other, in this order, after `delay`.
    fn schedule_all(self: &Arc<Self>, delay: Duration, commands: Vec<Command>) {
        let shared = self.clone();
        tokio::spawn(async move {
            tokio::time::sleep(delay).await;
            for command in commands {
                shared.deliver(command);
            }
        });
    }
}

/// A running sandbox SMSC.
pub struct Sandbox {
    addr: SocketAddr,
    tls_addr: Option<SocketAddr>,
    shared: Arc<Shared>,
    task: JoinHandle<()>,
    tls_task: Option<JoinHandle<()>>,
}

impl Sandbox {
    /// Listens on 127.0.0.1 and serves until stopped.
    pub async fn start(config: SandboxConfig) -> std::io::Result<Sandbox> {
        let listener = TcpListener::bind(("127.0.0.1", config.port)).await?;
        let addr = listener.local_addr()?;
        let (drop_all, _) = watch::channel(0);
        let first_id = config.first_id;
        let shared = Arc::new(Shared {
            config,
            counts: Mutex::default(),
            next_id: AtomicU64::new(first_id),
            refuse_binds: AtomicBool::new(false),
            binds: AtomicU64::new(0),
            receivers: Mutex::default(),
            pending: Mutex::default(),
            drop_all,
            mo_reference: AtomicU8::new(1),
            closed: AtomicBool::new(false),
            clear_connections: AtomicU64::new(0),
            tls_connections: AtomicU64::new(0),
        });
        let task = {
            let shared = shared.clone();
            tokio::spawn(async move {
                let mut session_no = 0u64;
                while let Ok((stream, peer)) = listener.accept().await {
                    session_no += 1;
                    shared.clear_connections.fetch_add(1, Ordering::Relaxed);
                    tracing::debug!(%peer, session_no, "sandbox: connection");
                    tokio::spawn(session::run(stream, shared.clone(), session_no));
                }
            })
        };
        let (tls_addr, tls_task) = match shared.config.tls.clone() {
            Some(tls) => {
                let (addr, task) = serve_tls(&tls, shared.clone()).await?;
                (Some(addr), Some(task))
            }
            None => (None, None),
        };
        Ok(Sandbox {
            addr,
            tls_addr,
            shared,
            task,
            tls_task,
        })
    }

    /// Where SMPP over TLS is served, when the sandbox was given a certificate.
    pub fn tls_addr(&self) -> Option<SocketAddr> {
        self.tls_addr
    }

    /// Connections accepted so far: (on the clear port, on the TLS port). A TLS connection counts
    /// once accepted, whether or not its handshake then succeeds.
    pub fn connections(&self) -> (u64, u64) {
        (
            self.shared.clear_connections.load(Ordering::Relaxed),
            self.shared.tls_connections.load(Ordering::Relaxed),
        )
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// What the sandbox saw for a destination and content.
    pub fn counts(&self, destination: &str, content: &[u8]) -> Counts {
        let counts = self.shared.counts.lock().unwrap_or_else(|p| p.into_inner());
        counts
            .get(&(destination.to_owned(), content.to_owned()))
            .copied()
            .unwrap_or_default()
    }

    /// Every (destination, content) the sandbox accepted more than once.
    pub fn accepted_twice(&self) -> Vec<(String, Vec<u8>, u32)> {
        let counts = self.shared.counts.lock().unwrap_or_else(|p| p.into_inner());
        counts
            .iter()
            .filter(|(_, c)| c.accepted > 1)
            .map(|((d, t), c)| (d.clone(), t.clone(), c.accepted))
            .collect()
    }

    /// Totals over every destination and content: (submits, accepted, accepted more than once).
    pub fn totals(&self) -> (u64, u64, u64) {
        let counts = self.shared.counts.lock().unwrap_or_else(|p| p.into_inner());
        counts.values().fold((0, 0, 0), |(s, a, d), c| {
            (
                s + u64::from(c.submits),
                a + u64::from(c.accepted),
                d + u64::from(c.accepted > 1),
            )
        })
    }

    /// Bind requests received so far (refused ones included).
    pub fn binds(&self) -> u64 {
        self.shared.binds.load(Ordering::Relaxed)
    }

    /// While true, binds are refused with ESME_RBINDFAIL (as a provider in maintenance does).
    pub fn refuse_binds(&self, refuse: bool) {
        self.shared.refuse_binds.store(refuse, Ordering::Relaxed);
    }

    /// Drops every open connection (as a network failure does).
    pub fn drop_connections(&self) {
        self.shared.drop_all.send_modify(|n| *n += 1);
    }

    /// Sends a message from a handset to the client: queues its deliver_sm PDUs (one per part)
    /// on a bound receiver or transceiver session, or keeps them until one binds. Returns how
    /// many were queued.
    pub fn inject_mo(&self, mo: Mo) -> usize {
        self.handsets().reply(mo)
    }

    /// A handle that makes this sandbox's handsets reply, for whoever holds no `Sandbox`.
    pub fn handsets(&self) -> Handsets {
        Handsets {
            shared: self.shared.clone(),
        }
    }

    /// Accepts nothing more and drops every connection; the totals read after are final (an
    /// acceptance counted before is answered or its connection dropped, never answered uncounted).
    pub fn close(&self) {
        self.shared.close();
        self.drop_connections();
    }

    pub fn stop(self) {
        self.close();
        self.task.abort();
        if let Some(t) = self.tls_task {
            t.abort();
        }
    }
}

/// Listens on another loopback port and serves SMPP over TLS there; a failed handshake closes
/// that connection alone.
async fn serve_tls(tls: &SandboxTls, shared: Arc<Shared>) -> std::io::Result<(SocketAddr, JoinHandle<()>)> {
    let acceptor = tls.acceptor().map_err(std::io::Error::other)?;
    let listener = TcpListener::bind(("127.0.0.1", 0)).await?;
    let addr = listener.local_addr()?;
    let task = tokio::spawn(async move {
        // Numbered apart from the clear port's sessions, high enough never to meet them.
        let mut session_no = 1u64 << 32;
        while let Ok((stream, peer)) = listener.accept().await {
            session_no += 1;
            shared.tls_connections.fetch_add(1, Ordering::Relaxed);
            let (acceptor, shared) = (acceptor.clone(), shared.clone());
            tokio::spawn(async move {
                match acceptor.accept(stream).await {
                    Ok(tls) => session::run(tls, shared, session_no).await,
                    Err(e) => tracing::debug!(%peer, error = %e, "sandbox: TLS handshake failed"),
                }
            });
        }
    });
    Ok((addr, task))
}

/// The handsets of a running sandbox: each reply goes to the client as a message from a handset.
/// Cheap to clone; replies made after the sandbox stopped go nowhere.
#[derive(Clone)]
pub struct Handsets {
    shared: Arc<Shared>,
}

impl Handsets {
    /// As [`Sandbox::inject_mo`].
    pub fn reply(&self, mo: Mo) -> usize {
        let pdus = self.shared.mo_pdus(&mo);
        tracing::debug!(parts = pdus.len(), "sandbox: MO");
        let queued = pdus.len();
        for pdu in pdus {
            self.shared.deliver(pdu);
        }
        queued
    }
}

/// `smsdesk sandbox-smsc --port N`: runs the sandbox alone until `stop` completes (Ctrl+C).
/// Each line of `commands` (standard input) that says `mo FROM TEXT...`,
/// `mo-ticket FROM TICKET TEXT...` or `mo-sar FROM TEXT...` sends a message from handset FROM to
/// "smsdesk"; the answer goes to standard error. The end of `commands` does not stop the sandbox.
pub async fn run_standalone(
    config: SandboxConfig,
    counts_file: Option<std::path::PathBuf>,
    commands: impl std::io::BufRead + Send + 'static,
    stop: impl std::future::Future<Output = ()>,
) -> std::io::Result<()> {
    let binds = match config.password {
        Some(_) => "any system_id, the password given",
        None => "any system_id and password",
    };
    let sandbox = Sandbox::start(config).await?;
    say(&format!(
        "smsdesk sandbox SMSC listening on {} (SMPP; {binds}). Sandbox: no real SMS is sent.\n\
         Scenarios by the last two digits of the destination: {}.\n\
         Replies from handsets, typed here one a line (to \"{}\"): mo FROM TEXT..., mo-ticket FROM TICKET TEXT..., \
         mo-sar FROM TEXT...\nStop with Ctrl+C.\n",
        sandbox.addr(),
        Scenario::legend(),
        mo::STDIN_TO,
    ));
    // The counters, for a test on another process: rewritten twice a second and on exit.
    let write_counts = |sandbox: &Sandbox| {
        if let Some(path) = &counts_file {
            let (submits, accepted, accepted_twice) = sandbox.totals();
            let json =
                serde_json::json!({ "submits": submits, "accepted": accepted, "accepted_twice": accepted_twice });
            let tmp = path.with_extension("tmp");
            if std::fs::write(&tmp, json.to_string())
                .and_then(|()| std::fs::rename(&tmp, path))
                .is_err()
            {
                tracing::warn!(path = %path.display(), "cannot write the counts file");
            }
        }
    };
    let mut every = tokio::time::interval(Duration::from_millis(500));
    let mut lines = read_lines(commands);
    let mut reading = true;
    tokio::pin!(stop);
    loop {
        tokio::select! {
            _ = every.tick() => write_counts(&sandbox),
            line = lines.recv(), if reading => match line {
                Some(line) => answer(&sandbox, &line),
                None => reading = false,
            },
            _ = &mut stop => break,
        }
    }
    sandbox.close();
    write_counts(&sandbox);
    sandbox.stop();
    Ok(())
}

/// Writes to standard error in one write, and without panicking if whoever started us stopped
/// reading (eprintln! writes piece by piece and panics on a closed pipe, which would take the
/// SMSC down with it).
fn say(text: &str) {
    let _ = std::io::Write::write_all(&mut std::io::stderr().lock(), text.as_bytes());
}

/// The lines of `input`, read on a thread of their own (a blocking read would hold up the
/// runtime); the channel closes at the end of the input or on a read error. Invalid UTF-8 is
/// replaced rather than refused.
fn read_lines(mut input: impl std::io::BufRead + Send + 'static) -> mpsc::UnboundedReceiver<String> {
    let (tx, rx) = mpsc::unbounded_channel();
    let spawned = std::thread::Builder::new().name("sandbox-stdin".into()).spawn(move || {
        let mut line = Vec::new();
        loop {
            line.clear();
            match input.read_until(b'\n', &mut line) {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    if tx.send(String::from_utf8_lossy(&line).into_owned()).is_err() {
                        break;
                    }
                }
            }
        }
    });
    if let Err(e) = spawned {
        tracing::warn!(error = %e, "sandbox: cannot read commands from standard input");
    }
    rx
}

/// Carries out one command line of the standalone sandbox and says what came of it.
fn answer(sandbox: &Sandbox, line: &str) {
    match mo::parse_line(line) {
        Ok(None) => {}
        Ok(Some(mo)) => {
            let waiting = if sandbox.shared.has_receiver() {
                ""
            } else {
                " (no client bound: sent when one binds)"
            };
            say(&format!("queued {} deliver_sm{waiting}\n", sandbox.inject_mo(mo)));
        }
        Err(e) => say(&format!("{e}\n")),
    }
}
