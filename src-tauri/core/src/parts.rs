//! Where each part of a long message stands, in words, for the exceptions that hold it.

use crate::domain::AttemptOutcome;

/// One part's latest try in the message's current round of sending.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartTry {
    pub segment_no: u32,
    pub outcome: Option<AttemptOutcome>,
    pub provider_id: Option<String>,
    pub error: Option<String>,
}

/// "Part 1 of 3: accepted (provider id "A1"). Part 2 of 3: ..." for a message of `segments`
/// parts, from its tries ordered by part and, within a part, with an accepted try last (an
/// accepted try stands for its part whatever came after; else the latest try does). None for a
/// message of one part.
pub fn describe(segments: u32, tries: &[PartTry]) -> Option<String> {
    if segments <= 1 {
        return None;
    }
    let words = (1..=segments)
        .map(|n| {
            let state = match tries.iter().rev().find(|p| p.segment_no == n) {
                None => "not sent".to_owned(),
                Some(p) => match p.outcome {
                    Some(AttemptOutcome::Accepted) => format!(
                        "accepted (provider id {:?})",
                        p.provider_id.as_deref().unwrap_or_default()
                    ),
                    Some(AttemptOutcome::Timeout | AttemptOutcome::LinkLost | AttemptOutcome::Pending) => {
                        "written, answer never came (outcome unknown)".to_owned()
                    }
                    Some(AttemptOutcome::NotSent) | None => "not sent".to_owned(),
                    Some(_) => format!("refused: {}", p.error.as_deref().unwrap_or("no reason given")),
                },
            };
            format!("Part {n} of {segments}: {state}.")
        })
        .collect::<Vec<_>>()
        .join(" ");
    Some(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(segment_no: u32, outcome: AttemptOutcome, provider_id: Option<&str>, error: Option<&str>) -> PartTry {
        PartTry {
            segment_no,
            outcome: Some(outcome),
            provider_id: provider_id.map(Into::into),
            error: error.map(Into::into),
        }
    }

    #[test]
    fn each_part_is_named_by_its_standing_try_and_a_single_part_message_by_nothing() {
        let tries = [
            part(1, AttemptOutcome::Temporary, None, Some("throttled")),
            part(1, AttemptOutcome::Accepted, Some("A1"), None),
            part(2, AttemptOutcome::Permanent, None, Some("ESME_RX_P_APPN")),
        ];
        assert_eq!(
            describe(3, &tries).as_deref(),
            Some(
                "Part 1 of 3: accepted (provider id \"A1\"). Part 2 of 3: refused: ESME_RX_P_APPN. \
                 Part 3 of 3: not sent."
            )
        );
        assert_eq!(
            describe(1, &tries),
            None,
            "a message of one part has no parts to tell apart"
        );
        assert_eq!(
            describe(2, &[part(2, AttemptOutcome::Timeout, None, None)]).as_deref(),
            Some("Part 1 of 2: not sent. Part 2 of 2: written, answer never came (outcome unknown).")
        );
    }
}
