//! The cloneable handle senders hold, and the two steps of a submit: [`SessionHandle::reserve`]
//! then [`Permit::submit`].

use std::sync::Arc;
use std::time::Duration;

use rusmpp::pdus::SubmitSm;
use rusmpp::{Command, CommandStatus, Pdu};
use tokio::sync::{oneshot, watch};

use super::answer::{SubmitAnswer, SubmitFailure};
use super::binds::Slot;
use super::{BindRole, Inner, Link, LinkState, Outgoing};

/// A cloneable handle to the session task.
#[derive(Clone)]
pub struct SessionHandle {
    pub(super) inner: Arc<Inner>,
}

/// The right to send one submit: a window slot, a rate token, and its sequence number.
pub struct Permit {
    link: Link,
    accepted: Arc<Accepted>,
    connection: String,
    sequence_number: u32,
    response_timeout: Duration,
    _slot: Slot,
}

impl Permit {
    /// The connection the submit goes out on.
    pub fn connection(&self) -> &str {
        &self.connection
    }

    pub fn session_id(&self) -> &str {
        &self.link.session_id
    }

    pub fn sequence_number(&self) -> u32 {
        self.sequence_number
    }

    /// Writes the submit and waits for its answer. A submit counts as written once its frame was
    /// flushed to the socket; one the link ended before writing is [`SubmitFailure::NotSent`].
    pub async fn submit(self, pdu: SubmitSm) -> Result<SubmitAnswer, SubmitFailure> {
        // Registered before the frame goes out: the answer can arrive as soon as it is flushed.
        let (answered, answer) = oneshot::channel();
        self.link
            .pending
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(self.sequence_number, answered);
        let written_at = self.write(pdu).await?;
        self.await_answer(answer, written_at).await
    }

    /// Hands the submit to the link's writer and waits (the response timeout at most) until it
    /// was flushed: the time it was, or why it does not count as sent or its outcome is unknown.
    async fn write(&self, pdu: SubmitSm) -> Result<i64, SubmitFailure> {
        let (written, write) = oneshot::channel();
        let frame = Outgoing {
            command: Command::new(CommandStatus::EsmeRok, self.sequence_number, pdu),
            written: Some(written),
        };
        if self.link.out.send(frame).is_err() {
            self.link.forget(self.sequence_number);
            return Err(SubmitFailure::NotSent("the link closed before the write".into()));
        }
        match tokio::time::timeout(self.response_timeout, write).await {
            Ok(Ok(Ok(at))) => Ok(at),
            Ok(Ok(Err(at))) => {
                self.link.forget(self.sequence_number);
                Err(SubmitFailure::LinkLost { written_at: Some(at) })
            }
            Ok(Err(_)) => {
                self.link.forget(self.sequence_number);
                Err(SubmitFailure::NotSent(
                    "the link closed before the submit was written".into(),
                ))
            }
            // Still in the socket's hands: it may yet reach the SMSC.
            Err(_) => {
                self.link.forget(self.sequence_number);
                Err(SubmitFailure::Timeout { written_at: None })
            }
        }
    }

    /// Waits (the response timeout at most) for the answer to a submit written at `written_at`.
    async fn await_answer(
        &self,
        answer: oneshot::Receiver<Command>,
        written_at: i64,
    ) -> Result<SubmitAnswer, SubmitFailure> {
        match tokio::time::timeout(self.response_timeout, answer).await {
            Ok(Ok(answer)) => {
                let message_id = accepted_message_id(&answer);
                if message_id.is_some() {
                    self.accepted.add(std::time::Instant::now());
                }
                Ok(SubmitAnswer {
                    command_status: u32::from(answer.status()),
                    message_id,
                    written_at,
                })
            }
            Ok(Err(_)) => Err(SubmitFailure::LinkLost {
                written_at: Some(written_at),
            }),
            Err(_) => {
                self.link.forget(self.sequence_number);
                Err(SubmitFailure::Timeout {
                    written_at: Some(written_at),
                })
            }
        }
    }
}

/// The message id of a submit_sm_resp that accepted the submit (none for a refusal).
fn accepted_message_id(answer: &Command) -> Option<String> {
    match answer.pdu() {
        Some(Pdu::SubmitSmResp(r)) if answer.status() == CommandStatus::EsmeRok => Some(r.message_id().to_string()),
        _ => None,
    }
}

impl SessionHandle {
    /// The name of the connection it sends on.
    pub fn connection(&self) -> &str {
        &self.inner.config.connection
    }

    /// The connection's state (bound while any sending bind is).
    pub fn state(&self) -> watch::Receiver<LinkState> {
        self.inner.state.subscribe()
    }

    /// Each bind's role and state, in the order they were opened.
    pub fn binds(&self) -> Vec<(BindRole, LinkState)> {
        self.inner
            .binds
            .iter()
            .map(|b| (b.role, b.state.borrow().clone()))
            .collect()
    }

    /// Unbinds every bind and keeps them unbound (state [`LinkState::Stopped`]) while `paused`;
    /// binds again once resumed. Sends under way lose their link: wait for
    /// [`SessionHandle::under_way`] to come to 0 first. Nothing once the session is stopped.
    pub fn set_paused(&self, paused: bool) {
        self.inner.run.send_if_modified(|run| {
            let want = if paused { super::Run::Pause } else { super::Run::Go };
            let change = *run != super::Run::Stop && *run != want;
            if change {
                *run = want;
            }
            change
        });
    }

    /// How long a submit waits for its answer at most.
    pub fn response_timeout(&self) -> std::time::Duration {
        self.inner.config.response_timeout
    }

    /// Whether the session is paused.
    pub fn paused(&self) -> bool {
        *self.inner.run.borrow() == super::Run::Pause
    }

    /// Submits the SMSC accepted per second over the last minute, or over the part of it since
    /// the first of them when that is shorter (a campaign that began 10 s ago is measured over
    /// 10 s); 0 when none was.
    pub fn accepted_per_s(&self) -> f64 {
        self.inner.accepted.per_s(std::time::Instant::now())
    }

    /// Submits between their permit and their answer (or the end of their wait for it).
    pub fn under_way(&self) -> usize {
        self.inner.under_way.load(std::sync::atomic::Ordering::Acquire)
    }

    /// Waits for a bound sending bind with a free window slot, then for the rate limit. Spends
    /// nothing while no bind is bound. When the bind's link is lost during the wait for the rate,
    /// looks for a slot again (on any bind).
    pub async fn reserve(&self) -> Result<Permit, SubmitFailure> {
        loop {
            let (i, slot) = self.inner.free_slot().await?;
            self.inner.wait_for_rate().await;
            let Some(link) = self.inner.binds[i].link.borrow().clone() else {
                continue;
            };
            let sequence_number = link.next_seq();
            return Ok(Permit {
                link,
                accepted: self.inner.accepted.clone(),
                connection: self.inner.config.connection.clone(),
                sequence_number,
                response_timeout: self.inner.config.response_timeout,
                _slot: slot,
            });
        }
    }
}

/// When counting began, and (second since then, count) of the last 60 s, oldest first.
type Seconds = (Option<std::time::Instant>, std::collections::VecDeque<(u64, u32)>);

/// Accepted submits counted by second, for the last minute's rate.
#[derive(Default)]
pub(super) struct Accepted {
    seconds: std::sync::Mutex<Seconds>,
}

impl Accepted {
    const WINDOW_S: u64 = 60;

    fn add(&self, now: std::time::Instant) {
        let mut guard = self.seconds.lock().unwrap_or_else(|p| p.into_inner());
        let (start, seconds) = &mut *guard;
        let second = now.duration_since(*start.get_or_insert(now)).as_secs();
        match seconds.back_mut() {
            Some((s, n)) if *s == second => *n += 1,
            _ => seconds.push_back((second, 1)),
        }
        while seconds.front().is_some_and(|(s, _)| s + Self::WINDOW_S <= second) {
            seconds.pop_front();
        }
    }

    fn per_s(&self, now: std::time::Instant) -> f64 {
        let guard = self.seconds.lock().unwrap_or_else(|p| p.into_inner());
        let (Some(start), seconds) = &*guard else { return 0.0 };
        let second = now.duration_since(*start).as_secs();
        let recent: Vec<&(u64, u32)> = seconds.iter().filter(|(s, _)| s + Self::WINDOW_S > second).collect();
        let Some((first, _)) = recent.first() else { return 0.0 };
        let span = (second - first + 1).min(Self::WINDOW_S) as f64;
        recent.iter().map(|(_, n)| f64::from(*n)).sum::<f64>() / span
    }
}

#[cfg(test)]
mod accepted_tests {
    use std::time::{Duration, Instant};

    use super::Accepted;

    #[test]
    fn the_rate_is_over_the_last_minute_or_since_the_first_accepted_submit_in_it() {
        let a = Accepted::default();
        let t0 = Instant::now();
        assert_eq!(a.per_s(t0), 0.0);
        for s in 0..10 {
            for _ in 0..50 {
                a.add(t0 + Duration::from_secs(s));
            }
        }
        assert_eq!(
            a.per_s(t0 + Duration::from_millis(9_500)),
            50.0,
            "10 s of sending at 50/s"
        );
        assert_eq!(a.per_s(t0 + Duration::from_secs(59)), 500.0 / 60.0, "then idle");
        assert_eq!(a.per_s(t0 + Duration::from_secs(70)), 0.0, "a minute later");
    }
}
