//! The computed state: a pure fold over what entered a message's projection, in the order it
//! was applied. No I/O here; the store feeds it and keeps its result.
//!
//! The rules (version [`RULES_VERSION`]):
//! - A **final** state (DELIVERED, EXPIRED, DELETED, UNDELIVERABLE, REJECTED, UNKNOWN, SKIPPED,
//!   and ACCEPTED where the connection says so) is materialised by the first final receipt and
//!   never replaced by a later one. The same final again supports it; an incompatible final is kept
//!   as evidence, raises the conflict flag, and is left to a person.
//! - An **intermediate** state (SCHEDULED < ACCEPTED < ENROUTE) is shown until a final arrives;
//!   among intermediates the most advanced wins, so their arrival order does not matter. An
//!   intermediate after a final is kept and flagged late.
//! - A **deadline** passed without a final flags "no receipt by deadline"; a final clears it.
//! - An operator's **decision** on an exception sets the state (or, for a dismissal, clears the
//!   flag it was about); receipts after it that contradict it raise a new conflict.
//! - A message sent in **several parts** keeps these rules part by part (a receipt reports on the
//!   parts whose submits carry its id); parts never conflict with each other. The message is
//!   delivered when every part is; when some parts are reported delivered and others not, it is
//!   *partially delivered*; when no part is delivered, it takes the first final a part got, or,
//!   while no part has one, the least advanced part's state. It is final once every part is.

use serde::{Deserialize, Serialize};

use crate::domain::{DeliveryState, ExceptionKind, TextForm, UnknownVariant};
use crate::receipts::parse::Stat;

/// Bump when a rule changes: stored projections carry the version that computed them.
/// 2: parts of a long message are folded one by one and rolled up.
pub const RULES_VERSION: u32 = 2;

/// Why the state is what it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    /// Nothing has been reported yet.
    NoReport,
    /// The most advanced intermediate state reported; not final.
    Intermediate,
    /// The first final state reported; final states never change on later receipts.
    FirstFinal,
    /// Decided by an operator on an exception.
    OperatorDecision,
    /// The parts of a long message stand in different places and some have no final yet.
    PartsPending,
    /// Every part of a long message has its final, and they differ.
    PartsFinal,
}

impl Rule {
    /// Every rule, in declaration order.
    pub const ALL: [Rule; 6] = [
        Rule::NoReport,
        Rule::Intermediate,
        Rule::FirstFinal,
        Rule::OperatorDecision,
        Rule::PartsPending,
        Rule::PartsFinal,
    ];

    pub const fn as_str(self) -> &'static str {
        match self {
            Rule::NoReport => "no_report",
            Rule::Intermediate => "intermediate",
            Rule::FirstFinal => "first_final",
            Rule::OperatorDecision => "operator_decision",
            Rule::PartsPending => "parts_pending",
            Rule::PartsFinal => "parts_final",
        }
    }

    /// The rule in plain words, for the timeline.
    pub const fn explain(self) -> &'static str {
        match self {
            Rule::NoReport => "No receipt has been applied to this message yet.",
            Rule::Intermediate => "The most advanced intermediate state the network reported; not final.",
            Rule::FirstFinal => "The first final state the network reported; later receipts never replace it.",
            Rule::OperatorDecision => "Decided by an operator when resolving an exception.",
            Rule::PartsPending => {
                "The parts of this long message stand in different places, and some have no final report yet."
            }
            Rule::PartsFinal => "Every part of this long message has its final report, and they differ.",
        }
    }
}

impl std::str::FromStr for Rule {
    type Err = UnknownVariant;
    fn from_str(text: &str) -> Result<Rule, UnknownVariant> {
        Rule::ALL
            .into_iter()
            .find(|r| r.as_str() == text)
            .ok_or_else(|| UnknownVariant {
                what: "rule",
                value: text.to_owned(),
                expected: Rule::ALL.map(Rule::as_str).join(", "),
            })
    }
}

impl std::fmt::Display for Rule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl TextForm for Rule {
    fn text(self) -> &'static str {
        self.as_str()
    }
}

/// What one logical event says about its message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventFacts {
    /// The logical event's id.
    pub event: i64,
    pub state: DeliveryState,
    /// Destination or text differ from the message's (never used to attribute, only flagged).
    pub mismatch: bool,
    /// The receipt's text id and its receipted_message_id TLV name different messages.
    pub id_disagree: bool,
    /// The parts of the message it reports on (from 1); empty: every part.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parts: Vec<u32>,
    /// How many parts the message has (1 for a message sent whole).
    #[serde(default = "one")]
    pub of: u32,
}

fn one() -> u32 {
    1
}

/// One thing that enters a message's projection.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Input {
    Event(EventFacts),
    /// The deadline for a final receipt passed (the no-receipt exception's id).
    Deadline {
        exception: i64,
    },
    /// An operator resolved an exception: with a state, or (None) by dismissing it.
    Decision {
        exception: i64,
        kind: ExceptionKind,
        state: Option<DeliveryState>,
    },
}

/// The connection settings the rules depend on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RuleSettings {
    pub accepted_is_final: bool,
}

/// The computed state of one message, and everything the fold needs to go on from here.
///
/// Stored as JSON (`projection.fold_json`) without the fields that are empty, absent or false: a
/// missing field reads as its default, so rows written in full before read the same. A typical
/// row is a third of the size, which every receipt writes and commits.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Projection {
    pub state: DeliveryState,
    pub rule: Rule,
    /// The logical events that support the state (sorted).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub supporting: Vec<i64>,
    /// Finals that contradict the state (sorted), kept for a person to look at.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conflicting: Vec<i64>,
    /// The exception whose resolution decided the state, if one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decided_by: Option<i64>,
    #[serde(default, skip_serializing_if = "is_false")]
    pub late: bool,
    #[serde(default, skip_serializing_if = "is_false")]
    pub conflict: bool,
    #[serde(default, skip_serializing_if = "is_false")]
    pub no_receipt: bool,
    #[serde(default, skip_serializing_if = "is_false")]
    pub mismatch: bool,
    #[serde(default, skip_serializing_if = "is_false")]
    pub id_disagree: bool,
    /// For a message sent in several parts, each part's own fold (part 1 first).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parts: Vec<Projection>,
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl Default for Projection {
    fn default() -> Self {
        Projection {
            state: DeliveryState::Pending,
            rule: Rule::NoReport,
            supporting: Vec::new(),
            conflicting: Vec::new(),
            decided_by: None,
            late: false,
            conflict: false,
            no_receipt: false,
            mismatch: false,
            id_disagree: false,
            parts: Vec::new(),
        }
    }
}

impl Projection {
    /// Whether the network has said its last word: a final state (every part's, for a message
    /// sent in parts), or an operator's decision.
    pub fn complete(&self, settings: RuleSettings) -> bool {
        self.decided_by.is_some()
            || if self.parts.is_empty() {
                settings.is_final(self.state)
            } else {
                self.parts.iter().all(|p| settings.is_final(p.state))
            }
    }
}

/// The normalised receipt status token's state.
pub fn state_from_stat(stat: Stat) -> DeliveryState {
    match stat {
        Stat::Delivrd => DeliveryState::Delivered,
        Stat::Expired => DeliveryState::Expired,
        Stat::Deleted => DeliveryState::Deleted,
        Stat::Undeliv => DeliveryState::Undeliverable,
        Stat::Acceptd => DeliveryState::Accepted,
        Stat::Unknown => DeliveryState::Unknown,
        Stat::Rejectd => DeliveryState::Rejected,
        Stat::Enroute => DeliveryState::Enroute,
        Stat::Schedld => DeliveryState::Scheduled,
        Stat::Skipped => DeliveryState::Skipped,
    }
}

impl RuleSettings {
    pub fn is_final(self, s: DeliveryState) -> bool {
        s.is_final() || (self.accepted_is_final && s == DeliveryState::Accepted)
    }
}

/// How far along an intermediate state is; only compared among non-final states.
fn progress(s: DeliveryState) -> u8 {
    match s {
        DeliveryState::Pending => 0,
        DeliveryState::Scheduled => 1,
        DeliveryState::Accepted => 2,
        DeliveryState::Enroute => 3,
        _ => 4,
    }
}

fn insert_sorted(v: &mut Vec<i64>, x: i64) {
    if let Err(at) = v.binary_search(&x) {
        v.insert(at, x);
    }
}

/// Applies one input. The whole projection is `inputs.fold(Projection::default(), apply)`.
pub fn apply(p: &mut Projection, input: &Input, settings: RuleSettings) {
    match input {
        Input::Event(e) => {
            p.mismatch |= e.mismatch;
            p.id_disagree |= e.id_disagree;
            if p.parts.is_empty() && e.of <= 1 {
                apply_state(p, e, settings);
                return;
            }
            if p.parts.len() < e.of as usize {
                p.parts.resize(e.of as usize, Projection::default());
            }
            for (i, part) in p.parts.iter_mut().enumerate() {
                if e.parts.is_empty() || e.parts.contains(&(i as u32 + 1)) {
                    apply_state(part, e, settings);
                }
            }
            if p.decided_by.is_some() {
                // Parts keep their own story; the message keeps the decision, and a final that
                // contradicts it is raised again.
                apply_state(p, e, settings);
            } else {
                roll_up(p, settings);
            }
        }
        Input::Deadline { .. } => {
            if !p.complete(settings) {
                p.no_receipt = true;
            }
        }
        Input::Decision { exception, kind, state } => {
            match state {
                Some(s) => {
                    p.state = *s;
                    p.rule = Rule::OperatorDecision;
                    p.decided_by = Some(*exception);
                    p.conflict = false;
                    p.no_receipt = false;
                }
                // Dismissing a conflict keeps the first final and closes the question; a dismissed
                // "no receipt" stays flagged, since it is still the case.
                None => {
                    if *kind == ExceptionKind::ConflictingFinal {
                        p.conflict = false;
                        for part in &mut p.parts {
                            part.conflict = false;
                        }
                    }
                }
            }
        }
    }
}

/// The single-part rules: what one event does to one fold's state.
fn apply_state(p: &mut Projection, e: &EventFacts, settings: RuleSettings) {
    let is_final_now = p.decided_by.is_some() || settings.is_final(p.state);
    if settings.is_final(e.state) {
        if is_final_now {
            if e.state == p.state {
                insert_sorted(&mut p.supporting, e.event);
            } else {
                insert_sorted(&mut p.conflicting, e.event);
                p.conflict = true;
            }
        } else {
            p.state = e.state;
            p.rule = Rule::FirstFinal;
            p.supporting = vec![e.event];
            p.no_receipt = false;
        }
    } else if is_final_now {
        p.late = true;
    } else if progress(e.state) > progress(p.state) {
        p.state = e.state;
        p.rule = Rule::Intermediate;
        p.supporting = vec![e.event];
    } else if e.state == p.state {
        insert_sorted(&mut p.supporting, e.event);
    }
}

/// A message sent in parts, from its parts' folds: delivered when every part is, partially
/// delivered when some are, else the first final a part got, else the least advanced part.
fn roll_up(p: &mut Projection, settings: RuleSettings) {
    let parts = &p.parts;
    let all_final = parts.iter().all(|x| settings.is_final(x.state));
    let (state, rule) = if parts.iter().all(|x| x.state == parts[0].state) {
        let rule = match parts[0].state {
            _ if all_final => Rule::FirstFinal,
            DeliveryState::Pending => Rule::NoReport,
            _ => Rule::Intermediate,
        };
        (parts[0].state, rule)
    } else {
        let rule = if all_final {
            Rule::PartsFinal
        } else {
            Rule::PartsPending
        };
        let first_final = parts
            .iter()
            .filter(|x| settings.is_final(x.state))
            .min_by_key(|x| x.supporting.first().copied().unwrap_or(i64::MAX));
        let state = if parts.iter().any(|x| x.state == DeliveryState::Delivered) {
            DeliveryState::PartiallyDelivered
        } else if let Some(f) = first_final {
            f.state
        } else {
            parts
                .iter()
                .map(|x| x.state)
                .min_by_key(|s| progress(*s))
                .unwrap_or(DeliveryState::Pending)
        };
        (state, rule)
    };
    let supporting = events_of(parts, |x| &x.supporting);
    let conflicting = events_of(parts, |x| &x.conflicting);
    p.conflict = parts.iter().any(|x| x.conflict);
    p.late |= parts.iter().any(|x| x.late);
    (p.state, p.rule, p.supporting, p.conflicting) = (state, rule, supporting, conflicting);
    if all_final {
        p.no_receipt = false;
    }
}

/// The events some part lists (its supporting or its conflicting ones), each once, in order.
fn events_of(parts: &[Projection], list: impl Fn(&Projection) -> &Vec<i64>) -> Vec<i64> {
    let mut events: Vec<i64> = parts.iter().flat_map(|x| list(x).iter().copied()).collect();
    events.sort_unstable();
    events.dedup();
    events
}

/// Folds inputs from nothing.
pub fn fold<'a>(inputs: impl IntoIterator<Item = &'a Input>, settings: RuleSettings) -> Projection {
    let mut p = Projection::default();
    for i in inputs {
        apply(&mut p, i, settings);
    }
    p
}

#[cfg(test)]
mod tests;
