//! People: accounts (admin only), signing in and out from a browser, sessions, and the setup
//! link that creates the first admin.

use std::sync::RwLock;

use super::{Service, ServiceError};
use crate::access::{AccountInfo, Caller, Me, Role, SessionInfo};
use crate::accounts::hashing::{Busy, Hashing, HashingUse, Slot};
use crate::accounts::session::{self as sessions, Lifetimes, SEEN_EVERY_MS};
use crate::accounts::setup::SetupLink;
use crate::accounts::throttle::{Reservation, Throttle};
use crate::accounts::{self, AccountChange, AccountError, FirstAdmin, NewAccount, PasswordChange, SetupState, SignIn};
use crate::audit::AuditAction;
use crate::store::tables::{account, session};

/// What signing in keeps in memory: failed tries, the setup link, how long sessions last, and
/// the threads that hash passwords.
#[derive(Debug, Default)]
pub struct People {
    throttle: Throttle,
    setup: SetupLink,
    lifetimes: RwLock<Lifetimes>,
    hashing: Hashing,
}

impl People {
    /// Hashes a new password on the hashing workers.
    pub(super) async fn hash(&self, password: String) -> Result<String, crate::accounts::hashing::Busy> {
        self.hashing.hash(password).await
    }

    /// Gives back a try begun whose password was never checked.
    pub(super) fn release(&self, r: crate::accounts::throttle::Reservation) {
        self.throttle.release(r)
    }
}

/// A browser just signed in: its cookie's token (given once, never stored) and who it is.
#[derive(Debug, Clone)]
pub struct SignedIn {
    pub token: String,
    pub me: Me,
    /// How long the cookie may live.
    pub max_age_secs: u64,
}

/// Where a sign-in comes from, for the session list and the slow-down.
#[derive(Debug, Clone, Default)]
pub struct Origin {
    pub address: String,
    pub user_agent: String,
}

/// How long a client is told to wait when every hashing thread is busy.
const BUSY_RETRY_AFTER_SECS: u64 = 1;

impl From<Busy> for ServiceError {
    fn from(_: Busy) -> ServiceError {
        ServiceError::Busy {
            retry_after_secs: BUSY_RETRY_AFTER_SECS,
        }
    }
}

impl Service {
    /// The stored form of a new password, hashed on the password threads (argon2 is slow on
    /// purpose, and its memory is bounded there).
    async fn hash(&self, password: String) -> Result<String, ServiceError> {
        Ok(self.people.hashing.hash(password).await?)
    }

    /// What the password checks take now, and how many were made since start.
    pub fn hashing_use(&self) -> HashingUse {
        self.people.hashing.usage()
    }

    /// A try at a password as `name` from `address`: reserved with the slow-down, then a place
    /// among the hashes, both before anything is read, so that a burst costs no more reads and
    /// checks than the slow-down and the hashing threads allow. No place: the try is given back.
    pub(super) fn begin_try(&self, name: &str, address: &str) -> Result<(Reservation, Slot<'_>), ServiceError> {
        let now = self.clock().now_ms();
        let reserved =
            self.people
                .throttle
                .reserve(name, address, now)
                .map_err(|wait| ServiceError::TooManyAttempts {
                    retry_after_secs: (wait as u64).div_ceil(1000),
                })?;
        match self.people.hashing.slot() {
            Ok(slot) => Ok((reserved, slot)),
            Err(busy) => {
                self.people.throttle.release(reserved);
                Err(busy.into())
            }
        }
    }

    /// Checks `password` against the account's `stored` hash (none: an unknown name, which costs
    /// the same) for a try begun with [`Service::begin_try`], and counts the outcome.
    pub(super) async fn check_password(
        &self,
        (reserved, slot): (Reservation, Slot<'_>),
        password: String,
        stored: Option<String>,
    ) -> bool {
        let ok = slot.verify(password, stored).await;
        match ok {
            true => self.people.throttle.succeeded(reserved),
            false => self.people.throttle.failed(reserved, self.clock().now_ms()),
        }
        ok
    }

    /// The account `name` may sign in as, read for a try begun (given back if the read fails:
    /// no password was checked).
    async fn usable_account<'a>(
        &'a self,
        name: &str,
        (reserved, slot): (Reservation, Slot<'a>),
    ) -> Result<((Reservation, Slot<'a>), Option<account::Credentials>), ServiceError> {
        let who = name.to_owned();
        match self.store.reader().read(move |c| account::credentials(c, &who)).await {
            Ok(found) => Ok(((reserved, slot), found.filter(|c| !c.disabled))),
            Err(e) => {
                self.people.throttle.release(reserved);
                Err(e.into())
            }
        }
    }

    /// How long browser sessions last from now on.
    pub fn set_session_lifetimes(&self, l: Lifetimes) {
        *self.people.lifetimes.write().unwrap_or_else(|p| p.into_inner()) = l;
    }

    fn lifetimes(&self) -> Lifetimes {
        *self.people.lifetimes.read().unwrap_or_else(|p| p.into_inner())
    }

    /// Who `caller` is, as the UI asks.
    pub fn me(&self, caller: &Caller, csrf_token: Option<String>) -> Me {
        Me::of(caller, csrf_token)
    }

    /// Every account, by name.
    pub async fn list_accounts(&self) -> Result<Vec<AccountInfo>, ServiceError> {
        Ok(self.store.reader().read(account::list).await?)
    }

    /// Creates an account (audited with `caller`'s name).
    pub async fn create_account(&self, caller: &Caller, new: NewAccount) -> Result<AccountInfo, ServiceError> {
        let name = accounts::check_new(&new)?;
        let hash = self.hash(new.password).await?;
        let (actor, role) = (caller.actor(), new.role);
        Ok(self
            .store
            .writer()
            .write(move |tx| accounts::create(tx, &name, role, &hash, &actor, None))
            .await?)
    }

    /// Changes an account (audited): its role, whether it may sign in, its password.
    pub async fn update_account(
        &self,
        caller: &Caller,
        id: i64,
        change: AccountChange,
    ) -> Result<AccountInfo, ServiceError> {
        self.change_account(caller, id, change, None).await
    }

    /// [`Service::update_account`], keeping session `keep` alive.
    async fn change_account(
        &self,
        caller: &Caller,
        id: i64,
        change: AccountChange,
        keep: Option<i64>,
    ) -> Result<AccountInfo, ServiceError> {
        let hash = match &change.password {
            Some(p) => {
                let name = self.account(id).await?.name;
                accounts::check_password("password", p, &name).map_err(|e| ServiceError::Invalid(vec![e]))?;
                Some(self.hash(p.clone()).await?)
            }
            None => None,
        };
        let actor = caller.actor();
        Ok(self
            .store
            .writer()
            .write(move |tx| accounts::update(tx, id, &change, hash.as_deref(), &actor, keep))
            .await?)
    }

    async fn account(&self, id: i64) -> Result<AccountInfo, ServiceError> {
        self.store
            .reader()
            .read(move |c| account::get(c, id))
            .await?
            .ok_or(ServiceError::Account(AccountError::NotFound(id)))
    }

    /// Sessions that are still valid, newest first.
    pub async fn list_sessions(&self) -> Result<Vec<SessionInfo>, ServiceError> {
        let (now, idle) = (self.clock().now_ms(), self.lifetimes().idle.as_millis() as i64);
        let mut all = self.store.reader().read(move |c| session::list_live(c, now)).await?;
        all.retain(|s| now - s.last_seen_ms < idle);
        Ok(all)
    }

    /// Ends session `id` at once (audited).
    pub async fn revoke_session(&self, caller: &Caller, id: i64) -> Result<(), ServiceError> {
        let actor = caller.actor();
        let revoked = self
            .store
            .writer()
            .write(move |tx| {
                let done = session::revoke(tx, id, &actor)?;
                if done {
                    tx.audit().append(&crate::store::tables::NewAudit {
                        actor: actor.clone(),
                        action: AuditAction::SessionRevoke,
                        subject_type: Some("session".into()),
                        subject_id: Some(id),
                        note: None,
                        details_json: None,
                    })?;
                }
                Ok::<_, crate::store::StoreError>(done)
            })
            .await?;
        match revoked {
            true => Ok(()),
            false => Err(ServiceError::NotFound(format!("live session {id}"))),
        }
    }

    /// A signed-in person's new password (their current one proves it is them, checked and slowed
    /// down as a sign-in from `address` is); their other sessions end, this one goes on.
    pub async fn change_password(
        &self,
        caller: &Caller,
        change: PasswordChange,
        address: &str,
    ) -> Result<(), ServiceError> {
        let Caller::Person {
            account_id,
            name,
            session_id,
            ..
        } = caller
        else {
            return Err(ServiceError::Forbidden(
                "only a signed-in person has a password to change".into(),
            ));
        };
        let begun = self.begin_try(name, address)?;
        let (begun, found) = self.usable_account(name, begun).await?;
        if !self
            .check_password(begun, change.current, found.map(|c| c.password_hash))
            .await
        {
            tracing::info!(name = %name, %address, "a password change gave a wrong current password");
            return Err(ServiceError::Invalid(vec![crate::intake::FieldError::new(
                "current",
                crate::intake::codes::WRONG_PASSWORD,
                "the current password is not right",
            )]));
        }
        accounts::check_password("new", &change.new, name).map_err(|e| ServiceError::Invalid(vec![e]))?;
        let change = AccountChange {
            password: Some(change.new),
            ..AccountChange::default()
        };
        self.change_account(caller, *account_id, change, Some(*session_id))
            .await
            .map(|_| ())
    }

    /// Signs a person in: a new session, or why not. Failures are slowed down per account and
    /// per address, and answer the same whether the name exists or not.
    pub async fn sign_in(&self, req: SignIn, from: Origin) -> Result<SignedIn, ServiceError> {
        let name = req.name.trim().to_owned();
        // Begun before the database is read: a burst refused costs neither reads nor hashes.
        let begun = self.begin_try(&name, &from.address)?;
        let (begun, found) = self.usable_account(&name, begun).await?;
        // Checked whether the name exists or not: the answer and its time must not tell.
        let stored = found.as_ref().map(|c| c.password_hash.clone());
        let ok = self.check_password(begun, req.password, stored).await;
        match found {
            Some(a) if ok => self.open_session(a.id, a.name, a.role, from).await,
            _ => {
                tracing::info!(name = %name, address = %from.address, "a sign-in was refused");
                Err(ServiceError::SignInFailed("wrong name or password".into()))
            }
        }
    }

    async fn open_session(
        &self,
        account_id: i64,
        name: String,
        role: Role,
        from: Origin,
    ) -> Result<SignedIn, ServiceError> {
        let token = sessions::new_token();
        let lifetimes = self.lifetimes();
        let hash = sessions::token_hash(&token);
        let session_id = self
            .store
            .writer()
            .write(move |tx| {
                let expires_at_ms = lifetimes.expires_at(tx.now_ms());
                account::signed_in(tx, account_id)?;
                session::insert(
                    tx,
                    &session::NewSession {
                        account_id,
                        token_hash: &hash,
                        expires_at_ms,
                        address: &from.address,
                        user_agent: &from.user_agent,
                    },
                )
            })
            .await?;
        let caller = Caller::Person {
            account_id,
            name,
            role,
            session_id,
        };
        Ok(SignedIn {
            me: Me::of(&caller, Some(sessions::csrf_token(&token))),
            token,
            max_age_secs: lifetimes.absolute.as_secs(),
        })
    }

    /// Ends the caller's own session.
    pub async fn sign_out(&self, caller: &Caller) -> Result<(), ServiceError> {
        if let Caller::Person { session_id, .. } = caller {
            let (id, actor) = (*session_id, caller.actor());
            self.store
                .writer()
                .write(move |tx| session::revoke(tx, id, &actor))
                .await?;
        }
        Ok(())
    }

    /// The person a session cookie stands for, if the session is still valid (its last use is
    /// noted at most once a minute).
    pub async fn session_caller(&self, token: &str) -> Result<Option<Caller>, ServiceError> {
        if !token.starts_with(sessions::TOKEN_PREFIX) {
            return Ok(None);
        }
        let hash = sessions::token_hash(token);
        let Some(live) = self.store.reader().read(move |c| session::live(c, &hash)).await? else {
            return Ok(None);
        };
        let now = self.clock().now_ms();
        if !self.lifetimes().valid(&live, now) {
            return Ok(None);
        }
        if now - live.last_seen_ms >= SEEN_EVERY_MS {
            let id = live.id;
            self.store.writer().write(move |tx| session::seen(tx, id)).await?;
        }
        Ok(Some(Caller::Person {
            account_id: live.account_id,
            name: live.name,
            role: live.role,
            session_id: live.id,
        }))
    }

    /// Whether the first admin may still be created from a browser.
    pub async fn setup_state(&self) -> Result<SetupState, ServiceError> {
        let (accounts, _) = self.store.reader().read(account::counts).await?;
        Ok(SetupState { open: accounts == 0 })
    }

    /// A new setup link's token, valid 30 minutes, while no account exists (`None` after).
    pub async fn issue_setup_token(&self) -> Result<Option<String>, ServiceError> {
        Ok(match self.setup_state().await?.open {
            true => Some(self.people.setup.issue(self.clock().now_ms())),
            false => None,
        })
    }

    /// Creates the first admin with the setup link's token, and signs them in.
    pub async fn first_admin(&self, req: FirstAdmin, from: Origin) -> Result<SignedIn, ServiceError> {
        let new = NewAccount {
            name: req.name,
            role: Role::Admin,
            password: req.password,
        };
        let name = accounts::check_new(&new)?;
        let now = self.clock().now_ms();
        if !self.setup_state().await?.open {
            return Err(ServiceError::SetupTokenInvalid);
        }
        let country = office_country(req.country.as_deref())?;
        let Some(until) = self.people.setup.redeem(&req.token, now) else {
            return Err(ServiceError::SetupTokenInvalid);
        };
        // The new admin acts by their own name: how (by the setup link) is in the account's details.
        let actor = name.clone();
        let created = async {
            // The country first: refused (set otherwise by the environment), nothing is made.
            if let Some(country) = &country {
                self.set_office_country(actor.clone(), country).await?;
            }
            let hash = self.hash(new.password).await?;
            let (n, a) = (name.clone(), actor.clone());
            let info = self
                .store
                .writer()
                .write(move |tx| {
                    // Checked again in the write: two tabs racing with one link make one admin.
                    if account::counts(tx)?.0 > 0 {
                        return Ok(None);
                    }
                    accounts::create(tx, &n, Role::Admin, &hash, &a, Some("setup_link")).map(Some)
                })
                .await?;
            info.ok_or(ServiceError::SetupTokenInvalid)
        }
        .await;
        match created {
            Ok(info) => self.open_session(info.id, info.name, info.role, from).await,
            Err(e) => {
                if !matches!(e, ServiceError::SetupTokenInvalid) {
                    self.people.setup.restore(&req.token, until);
                }
                Err(e)
            }
        }
    }
}

/// The office's country as the setup form gives it: none when left out or blank, else two letters
/// (any case) of a country the numbering data knows, in capitals; `unknown_country` otherwise.
fn office_country(given: Option<&str>) -> Result<Option<String>, ServiceError> {
    let Some(given) = given.map(str::trim).filter(|c| !c.is_empty()) else {
        return Ok(None);
    };
    match crate::intake::known_region(given) {
        Some(id) => Ok(Some(id.as_ref().to_owned())),
        None => Err(ServiceError::Invalid(vec![crate::intake::FieldError::new(
            "country",
            crate::said::FieldCode::UnknownCountry,
            format!("{given:?} is not a country code: give the country's two letters (ISO 3166), such as FR, BE or RU"),
        )])),
    }
}
