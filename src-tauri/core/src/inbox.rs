//! The rules for messages from handsets: how a sender's address is read as a number, which replies
//! are opt-out or opt-in keywords, which kinds of message an opt-out stops, and how long the parts
//! of a long reply are awaited.

use crate::config::Config;
use crate::domain::MessageKind;
use crate::optout::Keywords;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InboxRules {
    /// The country whose national numbers are read without a country code (`intake.default_region`).
    pub region: Option<String>,
    pub keywords: Keywords,
    /// The kinds of message an opt-out stops.
    pub opt_out_kinds: Vec<MessageKind>,
    /// How long the missing parts of a long reply are awaited, in milliseconds.
    pub reassembly_ms: i64,
}

impl InboxRules {
    pub fn from_config(c: &Config) -> InboxRules {
        let i = &c.inbox;
        InboxRules {
            region: c.intake.default_region.0.clone(),
            keywords: Keywords::new(&[
                ("en", &i.stop_words_en.0, &i.start_words_en.0),
                ("fr", &i.stop_words_fr.0, &i.start_words_fr.0),
                ("ru", &i.stop_words_ru.0, &i.start_words_ru.0),
            ]),
            opt_out_kinds: i.opt_out_kinds.0.clone(),
            reassembly_ms: i64::from(i.reassembly_timeout_seconds.0) * 1_000,
        }
    }
}

impl Default for InboxRules {
    fn default() -> Self {
        InboxRules::from_config(&Config::default())
    }
}
