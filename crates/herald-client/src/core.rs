//! The device core's public API: what the desktop's Tauri commands and `herald inbox` call.
//! Async methods never block the runtime: SQLite work runs in `spawn_blocking` against the
//! cache's own writer/reader connections; no lock is held across an `.await`.

use std::sync::{Arc, Mutex, RwLock};

use herald_crypto::{AccountKeys, ConnectionKeys, ConnectionToken, DeviceKeys, RecoveryKey};
use herald_protocol::content::AnswerContent;
use herald_protocol::wire::{CreateAccountRequest, CreateConnectionRequest};
use herald_protocol::MessageId;
use tokio::sync::broadcast;

use crate::cache::Cache;
pub use crate::context::CoreConfig;
use crate::context::{Inner, Store};
use crate::session::device_state::{self, DeviceState};
use crate::session::local_key::{self};
use crate::session::private_files::create_private_dir;
use crate::session::Session;
use crate::transport::http::RelayHttp;
use crate::view::*;
use crate::{answers::outbox, sync, view::present, Error, Result};

mod agents;
mod answer_files;
mod attachments;
mod cache_check;
mod device_flows;
mod inbox_page;
mod pairings;
mod pending;
mod rendered;
mod secret_offers;

/// Handle to the device core; cheap to clone, shareable across tasks.
#[derive(Clone)]
pub struct Core {
    pub(crate) inner: Arc<Inner>,
}

impl Core {
    /// Opens (creating if needed) the data dir, the local key and the cache, and loads the
    /// device state if this device has an account. Does not touch the network.
    pub fn open(config: CoreConfig) -> Result<Core> {
        Self::open_with(config, Cache::open)
    }

    /// [`Core::open`] with the cache opened by `open_cache` (core/cache_check.rs).
    fn open_with(
        config: CoreConfig,
        open_cache: fn(&std::path::Path) -> Result<Cache>,
    ) -> Result<Core> {
        let dir = &config.data_dir;
        let named = |e| in_data_dir(dir, e);
        create_private_dir(dir).map_err(named)?;
        let local = local_key::load_or_create(dir, config.use_keychain).map_err(named)?;
        let cache = Arc::new(open_cache(dir).map_err(named)?);
        let session = match device_state::load(dir, &local.key).map_err(named)? {
            Some(state) => Some(Arc::new(Session::new(state)?)),
            None => None,
        };
        let (events, _) = broadcast::channel(1024);
        Ok(Core {
            inner: Arc::new(Inner {
                store: Arc::new(Store {
                    data_dir: config.data_dir.clone(),
                    local,
                    cache,
                    events,
                }),
                config,
                session: RwLock::new(session),
                sync_task: Mutex::new(None),
                pairings: Default::default(),
                rendered: Default::default(),
                reconnect: Default::default(),
            }),
        })
    }

    /// The relay's current time, as learned from the `Date` headers of its responses (the
    /// local clock before any, or without an account). Deadlines shown or watched on this
    /// device count down by it, not by the local clock (docs/faults.md, "Relay time only").
    pub fn relay_now(&self) -> chrono::DateTime<chrono::Utc> {
        match self.inner.session() {
            Ok(session) => session.http.relay_now(),
            Err(_) => chrono::Utc::now(),
        }
    }

    /// Whether `data_dir` holds a device's sealed state (an account was set up or unlocked
    /// there). Creates nothing, unlike [`Core::open`] (which creates the dir, the local key
    /// and the cache): read-only commands check it first.
    pub fn has_device_state(data_dir: &std::path::Path) -> bool {
        data_dir.join(device_state::STATE_FILE).is_file()
    }

    /// What the first screen should be.
    pub fn setup_state(&self) -> SetupState {
        let session = self.inner.session().ok();
        let s = session.as_deref();
        SetupState {
            status: if s.is_some() {
                SetupStatus::Ready
            } else {
                SetupStatus::NeedsSetup
            },
            account_id: s.map(|s| s.state.account_id.to_string()),
            device_id: s.map(|s| s.state.device_id.to_string()),
            device_name: s.map(|s| s.state.device_name.clone()),
            relay_url: s.map(|s| s.state.relay_url.clone()),
            safety_code: s.map(|s| s.safety_code.clone()),
            secret_storage: self.inner.store.local.kind,
            secret_storage_path: self
                .inner
                .store
                .local
                .path
                .as_ref()
                .map(|p| p.display().to_string()),
        }
    }

    /// Creates a new account on `relay_url` with this device as its first device: generates
    /// the account and device keys, registers the signed statement and certificates, and
    /// stores the sealed state. Returns the recovery key (shown once) and the safety code.
    pub async fn create_account(&self, relay_url: &str) -> Result<OnboardResult> {
        if self.inner.session().is_ok() {
            return Err(Error::AlreadySetUp);
        }
        let http = RelayHttp::new(relay_url)?;
        let account_keys = AccountKeys::generate();
        let device_keys = DeviceKeys::generate();
        let device_id = herald_crypto::new_device_id();
        let now = crate::timestamps::now_rfc3339();
        let cfg = &self.inner.config;
        let request = CreateAccountRequest {
            statement: account_keys.statement(&now),
            encryption_key: account_keys
                .encryption_key_certificate(account_keys.current_epoch(), &now)?,
            device: account_keys.certify_device(
                &device_id,
                &cfg.device_name,
                &cfg.platform,
                &device_keys.public(),
                &now,
            ),
        };
        let created = http.create_account(&request).await?;
        let state = DeviceState {
            relay_url: http.base_url().to_owned(),
            account_id: created.account_id,
            device_id: created.device_id,
            device_name: cfg.device_name.clone(),
            device_token: zeroize::Zeroizing::new(created.device_token),
            account_keys,
            device_keys,
        };
        // The recovery backup goes up before the state is saved: a device that fails here
        // starts over on the next try, instead of keeping an account whose recovery key was
        // never backed up or never shown.
        let recovery = RecoveryKey::generate();
        let session = Arc::new(Session::new(state)?);
        session
            .upload_recovery_backup(&recovery.recipient())
            .await?;
        device_state::save(&cfg.data_dir, &self.inner.store.local.key, &session.state)?;
        let result = OnboardResult {
            account_id: session.state.account_id.to_string(),
            recovery_key: recovery.display().to_string(),
            safety_code: session.safety_code.clone(),
        };
        *self
            .inner
            .session
            .write()
            .unwrap_or_else(|p| p.into_inner()) = Some(session);
        Ok(result)
    }

    /// Checks a typed recovery key against the backup on the relay: `Ok(true)` when it opens
    /// this account's key bundle. Errors: `invalid_input` for a malformed or mistyped key
    /// (checksum), `not_found` when the relay holds no backup.
    pub async fn check_recovery_key(&self, typed: &str) -> Result<bool> {
        let session = self.inner.session()?;
        let key = RecoveryKey::parse(typed)
            .map_err(|e| Error::InvalidInput(format!("recovery key: {e}")))?;
        let backup = session.http.backup().await?;
        let sealed = herald_protocol::envelope::b64_decode(&backup.sealed_bundle)
            .ok_or_else(|| Error::Protocol("the stored backup is not base64url".into()))?;
        Ok(
            match herald_crypto::open_bundle_with_recovery(&sealed, &key) {
                Ok(bundle) => bundle.account_id() == session.state.account_id,
                Err(_) => false,
            },
        )
    }

    /// Starts the background sync task (websocket + catch-up fetches). Idempotent. Must be
    /// called inside a tokio runtime.
    pub fn start_sync(&self) -> Result<()> {
        let session = self.inner.session()?;
        let mut task = self
            .inner
            .sync_task
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        if task.as_ref().is_some_and(|t| !t.is_finished()) {
            return Ok(());
        }
        let inner = self.inner.clone();
        let policy = move || inner.reconnect_backoff();
        *task = Some(tokio::spawn(sync::run(
            self.inner.store.clone(),
            session,
            policy,
        )));
        Ok(())
    }

    /// Sets how the sync task waits between reconnect attempts; a running task follows it from
    /// its next wait. The default ([`crate::ReconnectBackoff::default`]: 250 ms doubling to
    /// 30 s, full jitter) is right for real use. Errors: `InvalidInput` for a zero base or a
    /// cap below the base.
    pub fn set_reconnect_backoff(&self, policy: crate::ReconnectBackoff) -> Result<()> {
        policy.validate()?;
        *self
            .inner
            .reconnect
            .lock()
            .unwrap_or_else(|p| p.into_inner()) = policy;
        Ok(())
    }

    /// Stops the background sync task, if running.
    pub fn stop_sync(&self) {
        if let Some(t) = self
            .inner
            .sync_task
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
        {
            t.abort();
        }
    }

    /// One catch-up pass without the socket (for `herald inbox`). Returns records stored.
    pub async fn sync_once(&self) -> Result<usize> {
        let session = self.inner.session()?;
        sync::catch_up(&self.inner.store, &session).await
    }

    /// [`Core::sync_once`] for a command that can show the cache instead: first the relay
    /// must answer `GET /health` within `reach` (connect included), so a relay that is down,
    /// or hung (accepting connections and never answering), fails within `reach` with
    /// `network` rather than after the usual timeouts (40 s); the catch-up itself then runs
    /// with the usual ones. Errors: `network`, and those of [`Core::sync_once`].
    pub async fn sync_within(&self, reach: std::time::Duration) -> Result<usize> {
        let session = self.inner.session()?;
        match tokio::time::timeout(reach, session.http.health()).await {
            Ok(answered) => answered?,
            Err(_) => {
                return Err(session
                    .http
                    .unreachable(format!("no answer within {} s", reach.as_secs())))
            }
        }
        sync::catch_up(&self.inner.store, &session).await
    }

    /// When this device last finished a catch-up with the relay (RFC 3339, relay clock), from
    /// the cache; `None` before the first.
    pub async fn last_synced_at(&self) -> Result<Option<String>> {
        self.inner.store.cache_call(|c| c.synced_at()).await
    }

    /// Subscribes to events for the UI.
    pub fn subscribe(&self) -> broadcast::Receiver<CoreEvent> {
        self.inner.store.events.subscribe()
    }

    /// Creates a connection for an agent: derives its keys from a fresh seed, certifies them
    /// with the account identity key, registers the certificate, and returns the token once.
    /// The seed is not kept on this device. `scopes` (names, docs/authorization.md "Scopes"):
    /// what the token may do; `None` for all three. Errors: `invalid_input` for a bad name, no
    /// scope or an unknown one.
    pub async fn create_connection(
        &self,
        name: &str,
        scopes: Option<&[String]>,
    ) -> Result<NewConnection> {
        let name = name.trim();
        herald_protocol::text::check_label(name, 100)
            .map_err(|e| Error::InvalidInput(format!("the connection name {e}")))?;
        let scopes = scopes.map(parse_scopes).transpose()?;
        let session = self.inner.session()?;
        let seed = zeroize::Zeroizing::new(herald_crypto::random_bytes::<32>());
        let keys = ConnectionKeys::from_seed(&seed);
        let id = herald_crypto::new_connection_id();
        let now = crate::timestamps::now_rfc3339();
        let certificate = session
            .state
            .account_keys
            .certify_connection(&id, name, &keys, &now);
        let created = session
            .http
            .create_connection(&CreateConnectionRequest {
                certificate,
                scopes,
            })
            .await?;
        let token = ConnectionToken::new(
            &created.bearer,
            *seed,
            &session.state.account_keys.fingerprint(),
        );
        let _ = session.directory(true).await;
        Ok(NewConnection {
            id: created.connection_id.to_string(),
            name: name.to_owned(),
            token: token.to_string_secret().to_string(),
            relay_url: session.state.relay_url.clone(),
            scopes: scope_names(&created.scopes),
        })
    }

    /// Revokes a connection: the relay refuses its token from the next request on, and its
    /// certificate leaves `GET /keys`. Errors: `not_found`, `already_revoked` (revoked before;
    /// nothing changed).
    pub async fn revoke_connection(&self, id: &str) -> Result<()> {
        let session = self.inner.session()?;
        let id = herald_protocol::ConnectionId::parse(id)
            .ok_or_else(|| Error::NotFound(id.to_owned()))?;
        session.http.revoke_connection(&id).await?;
        let _ = session.directory(true).await;
        Ok(())
    }

    /// Lists this account's connections (not revoked).
    pub async fn list_connections(&self) -> Result<Vec<ConnectionView>> {
        let session = self.inner.session()?;
        let list = session.http.list_connections().await?;
        Ok(list
            .connections
            .into_iter()
            .filter(|c| c.revoked_at.is_none())
            .map(|c| ConnectionView {
                id: c.id.to_string(),
                name: c.name,
                scopes: scope_names(&c.scopes),
                created_at: c.created_at,
            })
            .collect())
    }

    /// The inbox, newest first, from the local cache (every message; the desktop reads it a
    /// page at a time with [`Core::inbox_page`]). Content blobs are not read.
    pub async fn inbox(&self) -> Result<Vec<MessageSummary>> {
        let rows = self
            .inner
            .store
            .cache_call(|c| c.summaries(None, usize::MAX).map(|p| p.rows))
            .await?;
        Ok(rows
            .iter()
            .map(|r| present::summary(&self.inner.store.local.key, r))
            .collect())
    }

    /// One message, decrypted and rendered, from the local cache.
    ///
    /// `body_html` comes from an in-memory cache when the message was opened before. A body
    /// with code past the highlighting budget is first returned with those blocks plain
    /// (`highlight-skipped`) while a full render runs in the background; when it is stored,
    /// a [`CoreEvent::MessageRendered`] with the id follows and the next call returns the
    /// fully coloured body (core/rendered.rs).
    pub async fn message(&self, id: &str) -> Result<MessageView> {
        let owned = id.to_owned();
        let row = self.inner.store.cache_call(move |c| c.get(&owned)).await?;
        let mut view = present::message_view(&self.inner.store.local.key, &row, |body| {
            self.inner.render_body(id, body)
        })?;
        let owned = id.to_owned();
        view.answer_queued = self
            .inner
            .store
            .cache_call(move |c| c.has_queued_answer(&owned))
            .await?;
        Ok(view)
    }

    /// The conversation a message belongs to, oldest first, from the local cache.
    pub async fn thread(&self, id: &str) -> Result<Vec<MessageSummary>> {
        let owned = id.to_owned();
        let thread_id = self
            .inner
            .store
            .cache_call(move |c| c.get(&owned))
            .await?
            .record
            .thread_id;
        let rows = self
            .inner
            .store
            .cache_call(move |c| c.thread(&thread_id))
            .await?;
        Ok(rows
            .iter()
            .map(|r| present::summary(&self.inner.store.local.key, r))
            .collect())
    }

    /// Marks a message read on this device.
    pub async fn mark_read(&self, id: &str) -> Result<()> {
        let owned = id.to_owned();
        if self
            .inner
            .store
            .cache_call(move |c| c.mark_read(&owned))
            .await?
        {
            let message = self.inner.store.summary_of(id).await?;
            let _ = self.inner.store.events.send(CoreEvent::MessageUpserted {
                message,
                is_new: false,
            });
        }
        Ok(())
    }

    /// Validates the answer against the request's form, seals it to the asking connection and
    /// the account, posts it (accepted once by the relay) and returns the updated message.
    /// Files for file fields (`input.files`, ≤ 100 MB each) are checked first, then encrypted
    /// and uploaded, and the answer names them (docs/files.md, "File answers").
    /// Errors: `validation_failed` (a missing or oversized file too, at its field id),
    /// `already_answered`, `request_expired`, `request_cancelled`, `not_found`, `network`
    /// (an answer with files or secret fields), `answer_queued` (the relay is out of reach:
    /// the answer is kept and posted on reconnect, see outbox.rs; also for a second answer to
    /// a request whose answer is queued, which posts nothing).
    pub async fn answer(&self, id: &str, input: AnswerInput) -> Result<MessageView> {
        let session = self.inner.session()?;
        let message_id = MessageId::parse(id).ok_or_else(|| Error::NotFound(id.to_owned()))?;
        let owned = id.to_owned();
        let row = self.inner.store.cache_call(move |c| c.get(&owned)).await?;
        let opened = present::opened(&self.inner.store.local.key, &row)?;
        let owned = id.to_owned();
        if self
            .inner
            .store
            .cache_call(move |c| c.has_queued_answer(&owned))
            .await?
        {
            return Err(Error::AnswerQueued);
        }
        let mut answer = match input.action_id {
            Some(action_id) => {
                if !input.files.is_empty() {
                    return Err(Error::InvalidInput(
                        "an action's answer carries no files".into(),
                    ));
                }
                let action = opened
                    .content
                    .actions
                    .iter()
                    .find(|a| a.id == action_id)
                    .ok_or_else(|| {
                        Error::InvalidInput(format!("no action {action_id:?} in this request"))
                    })?;
                AnswerContent {
                    action_id: Some(action_id),
                    values: action.values.clone(),
                    attachments: vec![],
                }
            }
            None => {
                // May hold secret field values: wiped when dropped, never logged.
                let text =
                    zeroize::Zeroizing::new(input.values_json.unwrap_or_else(|| "{}".into()));
                // Strict: a field given twice is refused, not silently the last one.
                let values = herald_protocol::json::from_str(&text).map_err(|e| {
                    Error::InvalidInput(format!(
                        "the answer's values must be a JSON object of field id → value: {e}"
                    ))
                })?;
                AnswerContent {
                    action_id: None,
                    values,
                    attachments: vec![],
                }
            }
        };
        // Files for file and secret-file fields: checked, then encrypted and uploaded
        // (answer_files.rs); secret-file ones move to the secret envelope below.
        answer_files::attach(&session.http, &opened.content, &mut answer, &input.files).await?;
        opened
            .content
            .validate_answer(&answer)
            .map_err(Error::Validation)?;
        // Secret field values leave the answer here: sealed to the asking connection only,
        // never cached (secrets.rs). A rotation this device has not synced yet is learnt
        // before sealing. Out of reach, an answer without files or secrets waits in the
        // outbox and is posted exactly once later (outbox.rs).
        let waiting = outbox::can_wait(&opened.content, &answer).then(|| answer.clone());
        let result = outbox::post(&self.inner.store, &session, &message_id, &opened, answer).await;
        let record = match result {
            Ok(record) => record,
            Err(e) if crate::transport::http::is_transient(&e) && waiting.is_some() => {
                if let Some(answer) = waiting {
                    outbox::queue(&self.inner.store, id, &answer).await?;
                }
                return Err(Error::AnswerQueued);
            }
            Err(e) => {
                // Whatever happened, bring the cached record up to date before reporting.
                if let Ok(current) = session.http.message(&message_id).await {
                    self.store_and_announce(&session, &current).await?;
                }
                return Err(e);
            }
        };
        self.store_and_announce(&session, &record).await?;
        self.message(id).await
    }

    async fn store_and_announce(
        &self,
        session: &Session,
        record: &herald_protocol::wire::MessageRecord,
    ) -> Result<()> {
        outbox::store_and_announce(&self.inner.store, session, record).await
    }

    /// Ids of the requests whose answer waits in the outbox for the relay (oldest first);
    /// see `answer_queued` on [`Core::answer`].
    pub async fn queued_answers(&self) -> Result<Vec<String>> {
        let queued = self.inner.store.cache_call(|c| c.queued_answers()).await?;
        Ok(queued.into_iter().map(|(id, _)| id).collect())
    }
}

/// A storage error while opening `dir`, naming it (`data dir /path: Permission denied`).
/// Scope names as the UI sends them, checked: at least one, each known (repeats are merged).
fn parse_scopes(names: &[String]) -> Result<Vec<herald_protocol::scopes::Scope>> {
    if names.is_empty() {
        return Err(Error::InvalidInput(
            "choose at least one thing the connection may do".into(),
        ));
    }
    let scopes = names
        .iter()
        .map(|name| {
            herald_protocol::scopes::Scope::parse(name)
                .ok_or_else(|| Error::InvalidInput(format!("unknown scope {name:?}")))
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(herald_protocol::scopes::Scope::distinct(scopes))
}

fn scope_names(scopes: &[herald_protocol::scopes::Scope]) -> Vec<String> {
    scopes.iter().map(|s| s.as_str().to_owned()).collect()
}

fn in_data_dir(dir: &std::path::Path, e: Error) -> Error {
    match e {
        Error::Storage(text) => Error::Storage(format!("data dir {}: {text}", dir.display())),
        other => other,
    }
}
