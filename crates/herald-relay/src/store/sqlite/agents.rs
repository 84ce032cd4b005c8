//! [`AgentStore`] for the SQLite store: agent credentials (`agent_credentials.rs`),
//! notifications and quiet hours (`notifications.rs`).

use chrono::{DateTime, Utc};
use rusqlite::Connection;

use super::{accounts, agent_credentials as creds, notifications, ParseId, SqliteStore};
use crate::store::agents::{
    AgentCredentialRow, AgentError, AgentKeyRow, AgentResult, AgentStore, ConnectorRow,
    NewDeviceGrant, NewNotification, NotificationRow, NotifyOutcome, PollOutcome, ReceiptFlags,
};
use crate::store::TokenHash;
use herald_protocol::notify::QuietHours;
use herald_protocol::{AccountId, AgentKeyId, ConnectorId, NotificationId, Revision};

impl ParseId for AgentKeyId {
    fn parse_id(s: &str) -> Option<Self> {
        AgentKeyId::parse(s)
    }
}

impl ParseId for ConnectorId {
    fn parse_id(s: &str) -> Option<Self> {
        ConnectorId::parse(s)
    }
}

impl ParseId for NotificationId {
    fn parse_id(s: &str) -> Option<Self> {
        NotificationId::parse(s)
    }
}

impl SqliteStore {
    /// Runs `f` on a read connection.
    fn agent_read<T>(&self, f: impl FnOnce(&Connection) -> AgentResult<T>) -> AgentResult<T> {
        self.read(|c| Ok(f(c)))?
    }

    /// Runs `f` in an IMMEDIATE transaction on the writer; commits when it returns Ok.
    fn agent_write<T>(&self, f: impl FnOnce(&Connection) -> AgentResult<T>) -> AgentResult<T> {
        self.writer.write(f)
    }
}

fn existing(
    conn: &Connection,
    account: &AccountId,
    id: &NotificationId,
) -> AgentResult<NotificationRow> {
    notifications::by_id(conn, account, id)?.ok_or(AgentError::NotFound)
}

impl AgentStore for SqliteStore {
    fn create_agent_key(
        &self,
        account: &AccountId,
        id: &AgentKeyId,
        name: &str,
        token_hash: &TokenHash,
        now: DateTime<Utc>,
    ) -> AgentResult<()> {
        self.agent_write(|tx| {
            creds::insert_agent_key(tx, account, id, name, token_hash, now.timestamp_millis())
        })
    }

    fn list_agent_keys(&self, account: &AccountId) -> AgentResult<Vec<AgentKeyRow>> {
        self.agent_read(|c| creds::list_agent_keys(c, account))
    }

    fn revoke_agent_key(
        &self,
        account: &AccountId,
        id: &AgentKeyId,
        now: DateTime<Utc>,
    ) -> AgentResult<()> {
        self.agent_write(|tx| {
            creds::revoke(
                tx,
                "agent_keys",
                account,
                id.as_str(),
                now.timestamp_millis(),
            )
        })
    }

    fn create_device_grant(&self, grant: NewDeviceGrant) -> AgentResult<()> {
        self.agent_write(|tx| creds::insert_grant(tx, &grant))
    }

    fn approve_device_grant(
        &self,
        account: &AccountId,
        user_code: &str,
        connector: &ConnectorId,
        name: Option<&str>,
        now: DateTime<Utc>,
    ) -> AgentResult<ConnectorRow> {
        self.agent_write(|tx| {
            creds::approve_grant(
                tx,
                account,
                user_code,
                connector,
                name,
                now.timestamp_millis(),
            )
        })
    }

    fn deny_device_grant(
        &self,
        account: &AccountId,
        user_code: &str,
        now: DateTime<Utc>,
    ) -> AgentResult<()> {
        self.agent_write(|tx| creds::deny_grant(tx, account, user_code, now.timestamp_millis()))
    }

    fn poll_device_grant(
        &self,
        device_code_hash: &TokenHash,
        client_id: &str,
        token_hash: &TokenHash,
        now: DateTime<Utc>,
    ) -> AgentResult<PollOutcome> {
        self.agent_write(|tx| {
            creds::poll_grant(
                tx,
                device_code_hash,
                client_id,
                token_hash,
                now.timestamp_millis(),
            )
        })
    }

    fn list_connectors(&self, account: &AccountId) -> AgentResult<Vec<ConnectorRow>> {
        self.agent_read(|c| creds::list_connectors(c, account))
    }

    fn revoke_connector(
        &self,
        account: &AccountId,
        id: &ConnectorId,
        now: DateTime<Utc>,
    ) -> AgentResult<()> {
        self.agent_write(|tx| {
            creds::revoke(
                tx,
                "connectors",
                account,
                id.as_str(),
                now.timestamp_millis(),
            )
        })
    }

    fn agent_credential(&self, token_hash: &TokenHash) -> AgentResult<Option<AgentCredentialRow>> {
        self.agent_read(|c| creds::credential(c, token_hash))
    }

    fn notification_by_agent_id(
        &self,
        account: &AccountId,
        notification_id: &str,
    ) -> AgentResult<Option<NotificationRow>> {
        self.agent_read(|c| notifications::by_agent_id(c, account, notification_id))
    }

    fn notification(
        &self,
        account: &AccountId,
        id: &NotificationId,
    ) -> AgentResult<Option<NotificationRow>> {
        self.agent_read(|c| notifications::by_id(c, account, id))
    }

    fn insert_notification(&self, new: NewNotification) -> AgentResult<NotifyOutcome> {
        self.agent_write(|tx| {
            if let Some(row) = notifications::by_agent_id(tx, &new.account, &new.notification_id)? {
                return Ok(NotifyOutcome::Duplicate(row));
            }
            let revision = accounts::next_revision(tx, &new.account)?;
            notifications::insert(tx, &new, revision)?;
            Ok(NotifyOutcome::Created(existing(tx, &new.account, &new.id)?))
        })
    }

    fn notifications_after(
        &self,
        account: &AccountId,
        after: Revision,
        limit: u32,
    ) -> AgentResult<(Vec<NotificationRow>, bool)> {
        self.agent_read(|c| notifications::page(c, account, after, limit))
    }

    fn set_receipts(
        &self,
        account: &AccountId,
        id: &NotificationId,
        flags: ReceiptFlags,
        now: DateTime<Utc>,
    ) -> AgentResult<(NotificationRow, bool)> {
        self.agent_write(|tx| {
            let row = existing(tx, account, id)?;
            let ReceiptFlags {
                displayed,
                spoken,
                suppressed,
            } = flags;
            if !notifications::receipts_would_change(&row, displayed, spoken, suppressed) {
                return Ok((row, false));
            }
            let revision = accounts::next_revision(tx, account)?;
            notifications::set_receipts(
                tx,
                id,
                displayed,
                spoken,
                suppressed,
                revision,
                now.timestamp_millis(),
            )?;
            Ok((existing(tx, account, id)?, true))
        })
    }

    fn set_reply(
        &self,
        account: &AccountId,
        id: &NotificationId,
        text: &str,
        now: DateTime<Utc>,
    ) -> AgentResult<NotificationRow> {
        self.agent_write(|tx| {
            let row = existing(tx, account, id)?;
            if !row.expect_reply {
                return Err(AgentError::ReplyNotExpected);
            }
            if row.replied_at.is_some() {
                return Err(AgentError::AlreadyReplied);
            }
            let revision = accounts::next_revision(tx, account)?;
            notifications::set_reply(tx, &row, text, revision, now.timestamp_millis())?;
            existing(tx, account, id)
        })
    }

    fn sweep_agents(
        &self,
        notifications_before: DateTime<Utc>,
        grants_before: DateTime<Utc>,
    ) -> AgentResult<usize> {
        self.agent_write(|tx| {
            Ok(
                notifications::sweep(tx, notifications_before.timestamp_millis())?
                    + creds::sweep_grants(tx, grants_before.timestamp_millis())?,
            )
        })
    }

    fn quiet_hours(&self, account: &AccountId) -> AgentResult<Option<QuietHours>> {
        self.agent_read(|c| notifications::quiet_hours(c, account))
    }

    fn put_quiet_hours(
        &self,
        account: &AccountId,
        quiet: &QuietHours,
        now: DateTime<Utc>,
    ) -> AgentResult<()> {
        self.agent_write(|tx| {
            notifications::put_quiet_hours(tx, account, quiet, now.timestamp_millis())
        })
    }

    fn last_device_activity(&self, account: &AccountId) -> AgentResult<Option<DateTime<Utc>>> {
        self.agent_read(|c| {
            notifications::last_device_activity(c, account)?
                .map(|ms| super::from_millis(ms).map_err(AgentError::from))
                .transpose()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::agents::AgentCredential;
    use crate::store::suite::{account_id, seed_account};
    use herald_protocol::notify::SealedNotification;

    fn open() -> (tempfile::TempDir, SqliteStore) {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = SqliteStore::open(dir.path().join("relay.db")).expect("open store");
        seed_account(&store);
        (dir, store)
    }

    fn t(secs: i64) -> DateTime<Utc> {
        DateTime::<Utc>::from_timestamp(1_800_000_000 + secs, 0).unwrap()
    }

    #[test]
    fn device_grant_life() {
        let (_dir, store) = open();
        let grant = |code: &str, hash: u8| NewDeviceGrant {
            device_code_hash: [hash; 32],
            user_code: code.into(),
            client_id: "c".into(),
            client_name: Some("Client".into()),
            now: t(0),
            expires_at: t(600),
            interval_secs: 5,
        };
        store.create_device_grant(grant("BBBBBBBB", 1)).unwrap();
        assert!(
            matches!(
                store.create_device_grant(grant("BBBBBBBB", 2)),
                Err(AgentError::UserCodeTaken)
            ),
            "user codes are unique"
        );
        let poll = |now| {
            store
                .poll_device_grant(&[1; 32], "c", &[9; 32], now)
                .unwrap()
        };
        assert_eq!(poll(t(0)), PollOutcome::Pending);
        assert_eq!(poll(t(1)), PollOutcome::SlowDown, "sooner than 5 s");
        assert_eq!(
            store
                .poll_device_grant(&[1; 32], "other", &[9; 32], t(100))
                .unwrap(),
            PollOutcome::Invalid,
            "another client"
        );
        let connector = ConnectorId::from_random(&[5; 16]);
        let row = store
            .approve_device_grant(&account_id(), "BBBBBBBB", &connector, None, t(20))
            .unwrap();
        assert_eq!(row.name, "Client", "named after the client by default");
        assert_eq!(poll(t(40)), PollOutcome::Issued(connector.clone()));
        assert_eq!(poll(t(80)), PollOutcome::Invalid, "handed out once");
        let cred = store
            .agent_credential(&[9; 32])
            .unwrap()
            .expect("the token");
        assert_eq!(
            cred.credential,
            AgentCredential::Connector(connector.clone())
        );
        store
            .revoke_connector(&account_id(), &connector, t(90))
            .unwrap();
        assert!(store.agent_credential(&[9; 32]).unwrap().unwrap().revoked);
        assert_eq!(
            store.sweep_agents(t(0), t(601)).unwrap(),
            1,
            "the old grant goes"
        );
    }

    #[test]
    fn notifications_take_revisions_and_expire() {
        let (_dir, store) = open();
        let id = NotificationId::from_random(&[7; 16]);
        let new = NewNotification {
            account: account_id(),
            id: id.clone(),
            notification_id: "n-1".into(),
            source: AgentCredential::AgentKey(AgentKeyId::from_random(&[3; 16])),
            source_name: "bot".into(),
            sealed: SealedNotification {
                v: 1,
                key_id: "k".into(),
                enc: "e".into(),
                ciphertext: "c".into(),
            },
            expect_reply: true,
            suppressed: false,
            now: t(0),
        };
        let NotifyOutcome::Created(row) = store.insert_notification(new.clone()).unwrap() else {
            panic!("stored");
        };
        let again = NewNotification {
            id: NotificationId::from_random(&[8; 16]),
            ..new
        };
        assert!(
            matches!(
                store.insert_notification(again).unwrap(),
                NotifyOutcome::Duplicate(_)
            ),
            "the same notificationId is not stored twice"
        );
        let flags = ReceiptFlags {
            displayed: true,
            ..Default::default()
        };
        let (shown, changed) = store.set_receipts(&account_id(), &id, flags, t(5)).unwrap();
        assert!(
            changed && shown.revision > row.revision,
            "a receipt takes a revision"
        );
        let (same, changed) = store.set_receipts(&account_id(), &id, flags, t(9)).unwrap();
        assert!(
            !changed && same.displayed_at == Some(t(5)),
            "once, first time kept"
        );
        store.set_reply(&account_id(), &id, "ok", t(10)).unwrap();
        assert!(matches!(
            store.set_reply(&account_id(), &id, "again", t(11)),
            Err(AgentError::AlreadyReplied)
        ));
        let (page, more) = store
            .notifications_after(&account_id(), row.revision, 10)
            .unwrap();
        assert_eq!(
            (page.len(), more),
            (1, false),
            "the changed row is in the feed again"
        );
        // At now = arrival + 24 h the sweeper passes now − 24 h = the arrival time.
        let cutoff = t(0);
        assert_eq!(
            store.sweep_agents(cutoff, t(0)).unwrap(),
            1,
            "deleted at 24 h"
        );
        assert!(store.notification(&account_id(), &id).unwrap().is_none());
    }
}
