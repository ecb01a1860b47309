//! Edits to the callback providers: each one checked on its own, so every bad field is named;
//! secrets kept when not replaced, made for new providers, and never echoed back but once.

use crate::said::FieldCode;
use std::collections::BTreeMap;

use super::catalog::Applies;
use super::field_error;
use super::types::{GeneratedSecret, ProviderEdit, SettingChange};
use crate::config::{CallbackProvider, CallbackProviders};
use crate::intake::FieldError;

type Edited = (
    CallbackProviders,
    Vec<FieldError>,
    Vec<GeneratedSecret>,
    Vec<SettingChange>,
);

/// The providers `list` describes, from the `existing` ones.
pub fn edit(existing: &CallbackProviders, list: &[ProviderEdit]) -> Edited {
    let mut errors = Vec::new();
    let mut generated = Vec::new();
    let mut map = BTreeMap::new();
    for (i, p) in list.iter().enumerate() {
        if let Some((name, provider)) = checked(i, p, existing, &map, &mut errors, &mut generated) {
            map.insert(name, provider);
        }
    }
    let changes = changes(existing, &map);
    (CallbackProviders(map), errors, generated, changes)
}

/// The list's `i`th provider, each bad field of it in `errors`. None when its name cannot be
/// used (bad, or already in `listed`); a secret made for a new provider without one goes into
/// `generated` as well.
fn checked(
    i: usize,
    p: &ProviderEdit,
    existing: &CallbackProviders,
    listed: &BTreeMap<String, CallbackProvider>,
    errors: &mut Vec<FieldError>,
    generated: &mut Vec<GeneratedSecret>,
) -> Option<(String, CallbackProvider)> {
    let at = |field: &str| format!("callbacks.providers[{i}].{field}");
    let name = p.name.trim();
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') {
        errors.push(field_error(
            &at("name"),
            FieldCode::Invalid,
            "a provider's name (its URL's last part) may hold only letters, digits, - and _".into(),
        ));
        return None;
    }
    if listed.contains_key(name) {
        errors.push(field_error(
            &at("name"),
            FieldCode::Duplicate,
            format!("`{name}` is listed twice"),
        ));
        return None;
    }
    let secret = match (&p.secret, existing.0.get(name)) {
        (Some(s), _) => s.clone(),
        (None, Some(old)) => old.secret.clone(),
        (None, None) => {
            let s = crate::tokens::random_secret("cb_");
            generated.push(GeneratedSecret {
                provider: name.to_owned(),
                secret: s.clone(),
            });
            s
        }
    };
    if secret.trim().len() < 16 {
        errors.push(field_error(
            &at("secret"),
            FieldCode::TooShort,
            "a provider's secret must be at least 16 characters".into(),
        ));
    }
    let blank = |o: &Option<String>| o.as_deref().map(str::trim).filter(|s| !s.is_empty()).map(str::to_owned);
    let preset = blank(&p.preset);
    let wanted = preset.as_deref().unwrap_or(name);
    if crate::receipts::parse::builtin_mapping(wanted).is_none() {
        let field = if preset.is_some() { "preset" } else { "name" };
        errors.push(field_error(
            &at(field),
            FieldCode::UnknownPreset,
            format!(
                "no built-in mapping `{wanted}`; choose a preset (known: {})",
                crate::receipts::parse::BUILTIN_PROVIDERS.join(", ")
            ),
        ));
    }
    let provider = CallbackProvider {
        secret,
        preset,
        connection: blank(&p.connection),
    };
    Some((name.to_owned(), provider))
}

/// What the edit changes, provider by provider, as audited (a new or replaced secret is said to
/// have changed, never shown).
fn changes(existing: &CallbackProviders, map: &BTreeMap<String, CallbackProvider>) -> Vec<SettingChange> {
    let mut changes = Vec::new();
    for (name, new) in map {
        let old = existing.0.get(name);
        if old == Some(new) {
            continue;
        }
        let shape = |p: &CallbackProvider| {
            format!(
                "preset {}, connection {}",
                p.preset.as_deref().unwrap_or(name),
                p.connection.as_deref().unwrap_or("(the SMPP connection's)")
            )
        };
        changes.push(SettingChange {
            key: format!("callbacks.providers.{name}"),
            from: old.map(shape),
            to: Some(shape(new)),
            secret: old.is_none_or(|o| o.secret != new.secret),
            applies: Applies::Now,
        });
    }
    for (name, old) in &existing.0 {
        if !map.contains_key(name) {
            changes.push(SettingChange {
                key: format!("callbacks.providers.{name}"),
                from: Some(format!("preset {}", old.preset.as_deref().unwrap_or(name))),
                to: None,
                secret: false,
                applies: Applies::Now,
            });
        }
    }
    changes
}
