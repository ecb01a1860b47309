//! Administration: the settings (an admin's alone) and the API keys.

use std::sync::Arc;

use super::{Service, ServiceError};
use crate::apikeys::{self, ApiKeyInfo, Caller, CreatedApiKey, NewApiKey};
use crate::audit::AuditAction;
use crate::settings::{
    ConnectionTest, ConnectionTestResult, ConnectionsUpdate, ConnectionsView, Reloaded, Settings, SettingsSaved,
    SettingsUpdate, SettingsView,
};
use crate::store::tables::NewAudit;

impl Service {
    /// The settings, to an admin only; `NotFound` when no running engine holds them.
    fn settings_door(&self, caller: &Caller) -> Result<&Arc<Settings>, ServiceError> {
        if !caller.is_admin() {
            return Err(ServiceError::Forbidden("settings are an admin's".into()));
        }
        self.settings
            .as_ref()
            .ok_or_else(|| ServiceError::NotFound("settings (no running engine)".into()))
    }

    /// Every setting, where it comes from and when a change applies (admin only).
    pub fn settings(&self, caller: &Caller) -> Result<SettingsView, ServiceError> {
        self.settings_door(caller)?.view().map_err(ServiceError::from)
    }

    /// Saves changed settings and applies what may change while running (admin only,
    /// audited without any secret).
    pub async fn update_settings(&self, caller: &Caller, req: SettingsUpdate) -> Result<SettingsSaved, ServiceError> {
        let saved = self.settings_door(caller)?.update(req).await?;
        self.audit_settings(caller.actor(), &saved).await?;
        Ok(saved)
    }

    /// Audits the settings changes `saved` reports, as `actor`'s.
    async fn audit_settings(&self, actor: String, saved: &SettingsSaved) -> Result<(), ServiceError> {
        if !saved.changes.is_empty() {
            let audit = settings_audit(actor, saved);
            self.store
                .writer()
                .write(move |tx| tx.audit().append(&audit).map(|_| ()))
                .await?;
        }
        Ok(())
    }

    /// Sets the office's country (`intake.default_region`, checked as `country`) through the
    /// settings, as a settings change by `actor` (audited): the first admin's choice at setup.
    pub(super) async fn set_office_country(&self, actor: String, country: &str) -> Result<(), ServiceError> {
        let settings = self
            .settings
            .as_ref()
            .ok_or_else(|| ServiceError::NotFound("settings (no running engine)".into()))?;
        let req = SettingsUpdate {
            values: [(REGION_KEY.to_owned(), country.to_owned())].into(),
            password: None,
            callback_providers: None,
        };
        let saved = settings.update(req).await.map_err(|e| match ServiceError::from(e) {
            ServiceError::Invalid(errors) => ServiceError::Invalid(
                errors
                    .into_iter()
                    .map(|mut e| {
                        e.field = "country".into();
                        e
                    })
                    .collect(),
            ),
            other => other,
        })?;
        self.audit_settings(actor, &saved).await
    }

    /// Re-reads the config file and applies what may change while running (the operating system's
    /// reload: SIGHUP, `systemctl reload`); audited as the system's doing when anything changed.
    pub async fn reload_settings(&self) -> Result<Reloaded, ServiceError> {
        let settings = self
            .settings
            .as_ref()
            .ok_or_else(|| ServiceError::NotFound("settings (no running engine)".into()))?;
        let reloaded = settings.reload().await?;
        if reloaded.changed {
            let audit = NewAudit {
                subject_type: Some("settings".into()),
                details_json: Some(serde_json::json!({ "reconnected": reloaded.reconnected }).to_string()),
                ..NewAudit::new("system", AuditAction::SettingsReload)
            };
            self.store
                .writer()
                .write(move |tx| tx.audit().append(&audit).map(|_| ()))
                .await?;
        }
        Ok(reloaded)
    }

    /// The connections and routes as saved (admin only).
    pub fn connection_settings(&self, caller: &Caller) -> Result<ConnectionsView, ServiceError> {
        Ok(self.settings_door(caller)?.connections_view()?)
    }

    /// Saves the connections and routes and binds with them (admin only, audited without any
    /// password).
    pub async fn update_connection_settings(
        &self,
        caller: &Caller,
        update: ConnectionsUpdate,
    ) -> Result<SettingsSaved, ServiceError> {
        let names: Vec<String> = update.connections.iter().map(|c| c.name.clone()).collect();
        let routes: Vec<String> = update.routes.iter().map(|r| r.name.clone()).collect();
        let saved = self.settings_door(caller)?.update_connections(update).await?;
        let audit = NewAudit {
            subject_type: Some("settings".into()),
            details_json: Some(serde_json::json!({ "connections": names, "routes": routes }).to_string()),
            ..NewAudit::new(caller.actor(), AuditAction::SettingsUpdate)
        };
        self.store
            .writer()
            .write(move |tx| tx.audit().append(&audit).map(|_| ()))
            .await?;
        Ok(saved)
    }

    /// A trial bind with unsaved connection settings (admin only).
    pub async fn test_connection(
        &self,
        caller: &Caller,
        test: ConnectionTest,
    ) -> Result<ConnectionTestResult, ServiceError> {
        Ok(self.settings_door(caller)?.test_connection(test).await?)
    }

    /// Creates an API key (audited). The key in the answer is not stored anywhere; its webhook
    /// secret is stored sealed, never in clear.
    pub async fn create_key(&self, caller: &Caller, new: NewApiKey) -> Result<CreatedApiKey, ServiceError> {
        let actor = caller.actor();
        let sealer = self
            .sealer
            .clone()
            .ok_or_else(|| ServiceError::BadRequest("this instance has no key to seal webhook secrets with".into()))?;
        Ok(self
            .store
            .writer()
            .write(move |tx| apikeys::create(tx, &new, &actor, &sealer))
            .await?)
    }

    /// Every API key, newest first.
    pub async fn list_keys(&self) -> Result<Vec<ApiKeyInfo>, ServiceError> {
        Ok(self.store.reader().read(apikeys::list).await?)
    }

    /// Revokes an API key at once (audited): every later request with it is refused.
    pub async fn revoke_key(&self, caller: &Caller, id: i64) -> Result<(), ServiceError> {
        let actor = caller.actor();
        Ok(self
            .store
            .writer()
            .write(move |tx| apikeys::revoke(tx, id, &actor))
            .await?)
    }

    /// The caller an API key stands for, if it is valid.
    ///
    /// The key is read from the database only when it was not read since the keys last changed
    /// ([`crate::known_keys`]).
    pub async fn authenticate(&self, key: String) -> Result<Option<Caller>, ServiceError> {
        let Some(hash) = apikeys::presented_hash(&key) else {
            return Ok(None);
        };
        let keys = self.store.keys_version();
        let version = keys.get();
        if let Some(caller) = self.known_keys.get(version, &hash) {
            return Ok(Some(caller));
        }
        let stored = hash.clone();
        let caller = self
            .store
            .reader()
            .read(move |c| apikeys::verify_hash(c, &stored))
            .await?;
        if let Some(caller) = &caller {
            self.known_keys.keep(version, keys.get(), hash, caller.clone());
        }
        Ok(caller)
    }
}

/// The setting of the office's country, which national numbers are read in.
const REGION_KEY: &str = "intake.default_region";

/// The audit entry for saved settings: which settings changed (their keys, for the screens to
/// word), and whether the SMPP link was bound again.
fn settings_audit(actor: String, saved: &SettingsSaved) -> NewAudit {
    let keys: Vec<&str> = saved.changes.iter().map(|c| c.key.as_str()).collect();
    let details =
        serde_json::json!({ "keys": keys, "changes": saved.changes, "reconnected": saved.reconnected }).to_string();
    NewAudit {
        actor,
        action: AuditAction::SettingsUpdate,
        subject_type: Some("settings".into()),
        subject_id: None,
        note: None,
        details_json: Some(details),
    }
}
