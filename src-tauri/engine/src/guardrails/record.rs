//! A refusal, recorded: counted for the Guardrails screen and audited with who asked (the
//! request's own transaction was rolled back, so nothing of it was stored).

use super::Refusal;
use crate::access::Caller;
use crate::audit::AuditAction;
use crate::store::tables::guardrail;
use crate::store::tables::NewAudit;
use crate::store::{StoreError, WriteTx};

/// Counts the refused messages by country, and writes one audit line for the request.
pub fn refusal(tx: &mut WriteTx<'_>, r: &Refusal, caller: &Caller, sender: &str) -> Result<(), StoreError> {
    let mut by_country: std::collections::BTreeMap<&str, u64> = std::collections::BTreeMap::new();
    for c in &r.countries {
        *by_country.entry(c.as_str()).or_default() += 1;
    }
    for (country, n) in by_country {
        guardrail::count(tx, r.reason, country, sender, n)?;
    }
    let mut details = r.details.clone();
    details["sender"] = sender.into();
    if let Some(key) = caller.key_name() {
        details["key"] = key.into();
    }
    tx.audit().append(&NewAudit {
        actor: caller.actor(),
        action: AuditAction::GuardrailRefused,
        subject_type: None,
        subject_id: None,
        note: None,
        details_json: Some(details.to_string()),
    })?;
    Ok(())
}
