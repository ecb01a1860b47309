//! A bind's owner task: connect and bind, run the link until it ends, wait with backoff, and again,
//! until stopped or until the SMSC refuses the credentials.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;

use smsdesk_core::command_status as status;
use smsdesk_core::time::jitter;

use super::connect::{connect_and_bind, Bind};
use super::link::run_link;
use super::{until_stopped, InboundHandler, Inner, LinkEnd, LinkState, Run, SessionConfig};

/// Bind `i`'s task: binds, runs each link, and reconnects after a loss or a failed bind, until
/// asked to stop. Refused credentials are not tried again until the session is paused and resumed
/// (an operator disabled and enabled the connection). While paused, nothing is bound, and the
/// state is [`LinkState::Stopped`], as it is once stopped.
pub(super) async fn run(
    inner: Arc<Inner>,
    i: usize,
    inbound: Arc<dyn InboundHandler>,
    mut control: watch::Receiver<Run>,
) {
    let mut attempt: u32 = 0;
    let mut session_no: u64 = 0;
    let role = inner.binds[i].role;
    while until_running(&inner, i, &mut control).await {
        attempt += 1;
        inner.set_state(i, LinkState::Connecting { attempt });
        let error = match connect_and_bind(&inner.config, role).await {
            Ok(framed) => {
                attempt = 0;
                session_no += 1;
                let session_id = new_session_id(&inner.config, &inner.binds[i].label, session_no);
                match run_link(&inner, i, &inbound, framed, session_id, &mut control).await {
                    LinkEnd::Stop => continue,
                    LinkEnd::Lost(e) => e,
                }
            }
            // Wrong credentials will not fix themselves: stop and say so. Other refusals
            // (ESME_RBINDFAIL during maintenance, say) are retried with backoff.
            Err(Bind::Refused(status)) if matches!(status, 0x0E | 0x0F) => {
                announce_refused(&inner, i, status);
                until_stopped(&mut control).await;
                attempt = 0;
                continue;
            }
            Err(Bind::Refused(status)) => {
                let info = status::describe(status);
                format!("bind refused: {} ({})", info.name, info.meaning)
            }
            Err(Bind::Failed(e) | Bind::Unreachable(e) | Bind::TimedOut(e) | Bind::Tls(e)) => e,
        };
        let wait = reconnect_wait(
            inner.config.reconnect_min,
            inner.config.reconnect_max,
            attempt,
            jitter(),
        );
        announce_down(&inner, i, error, wait);
        tokio::select! {
            _ = tokio::time::sleep(wait) => {}
            _ = until_stopped(&mut control) => attempt = 0,
        }
    }
    inner.set_link(i, None);
    inner.set_state(i, LinkState::Stopped);
}

/// True once the binds may run; false once the session stops. While paused the bind is unbound
/// and says it is stopped.
async fn until_running(inner: &Inner, i: usize, control: &mut watch::Receiver<Run>) -> bool {
    loop {
        let run = *control.borrow_and_update();
        match run {
            Run::Go => return true,
            Run::Stop => return false,
            Run::Pause => {
                inner.set_link(i, None);
                if *inner.binds[i].state.borrow() != LinkState::Stopped {
                    tracing::info!(
                        bind = inner.binds[i].label,
                        "SMPP bind paused: the connection is disabled"
                    );
                    inner.set_state(i, LinkState::Stopped);
                }
                if control.changed().await.is_err() {
                    return false;
                }
            }
        }
    }
}

/// The id of the `session_no`th bound link of the bind labelled `label`: connection, bind (when
/// the connection has several), number, and when.
fn new_session_id(config: &SessionConfig, label: &str, session_no: u64) -> String {
    let bind = if label.is_empty() {
        String::new()
    } else {
        format!("/{label}")
    };
    format!("{}{bind}#{}@{}", config.connection, session_no, config.clock.now_ms())
}

/// Says (in the log and the state) that the SMSC refused the credentials and nothing is retried.
fn announce_refused(inner: &Inner, i: usize, status: u32) {
    let info = status::describe(status);
    tracing::error!(
        status = info.name,
        bind = inner.binds[i].label,
        "the SMSC refused the bind; not retrying until reconfigured"
    );
    inner.set_state(
        i,
        LinkState::BindRefused {
            status,
            name: info.name.into(),
            since_ms: inner.config.clock.now_ms(),
        },
    );
}

/// Says (in the log and the state) that the link is down for `error`, and when it is tried again.
fn announce_down(inner: &Inner, i: usize, error: String, wait: Duration) {
    tracing::warn!(error = %error, bind = inner.binds[i].label, retry_in_ms = wait.as_millis() as u64, "SMPP link down");
    inner.set_state(
        i,
        LinkState::Down {
            error,
            since_ms: inner.config.clock.now_ms(),
            retry_in_ms: wait.as_millis() as u64,
        },
    );
}

/// How long to wait before connecting again after the `attempt`th failure in a row: exponential
/// backoff with full jitter (`jitter` in [0, 1)) between `min` and a bound that doubles with each
/// attempt up to `max`; never less than `min`, so a refusing SMSC is never hammered.
pub fn reconnect_wait(min: Duration, max: Duration, attempt: u32, jitter: f64) -> Duration {
    let bound = min.saturating_mul(1 << attempt.min(16)).min(max);
    min.max(bound.mul_f64(jitter.clamp(0.0, 1.0)))
}
