//! [`DeviceStore`] for [`SqliteStore`]: enrolment, the device list, revocation with key
//! rotation, per-device bundles, Reset, and pairing requests (table in `pairings.rs`).

use std::collections::BTreeSet;

use chrono::{DateTime, Utc};
use rusqlite::{params, Connection, OptionalExtension};

use super::{
    accounts, backups, cert_from_json, devices, encryption_keys, from_millis, pairings, parse_id,
    SqliteStore,
};
use crate::store::devices::{
    DeviceBundleRow, DeviceResult, DeviceRow, DeviceStore, NewDevice, NewPairing, PairingResponse,
    PairingRow, Rotation,
};
use crate::store::{NewAccount, StoreError, TokenHash};
use herald_protocol::devices::PairingStatus;
use herald_protocol::envelope::Certificate;
use herald_protocol::wire::RecoveryBackup;
use herald_protocol::{AccountId, DeviceId, ErrorCode, PairingId};

impl SqliteStore {
    /// Runs `f` in an IMMEDIATE transaction on the writer; commits when it returns Ok.
    fn write_devices<T>(&self, f: impl FnOnce(&Connection) -> DeviceResult<T>) -> DeviceResult<T> {
        self.writer.write(f)
    }

    fn read_devices<T>(&self, f: impl FnOnce(&Connection) -> DeviceResult<T>) -> DeviceResult<T> {
        let mut out = None;
        self.read(|c| {
            out = Some(f(c));
            Ok(())
        })?;
        out.unwrap_or_else(|| Err(StoreError::Task("read did not run".into()).into()))
    }
}

/// `device_limit_reached` when `account` holds [`MAX_DEVICES`] live devices already.
///
/// [`MAX_DEVICES`]: herald_protocol::devices::MAX_DEVICES
fn below_device_limit(tx: &Connection, account: &AccountId) -> DeviceResult<()> {
    let live: i64 = tx.query_row(
        "SELECT COUNT(*) FROM devices WHERE account_id = ?1 AND revoked_at_ms IS NULL",
        [account.as_str()],
        |r| r.get(0),
    )?;
    if usize::try_from(live).unwrap_or(usize::MAX) >= herald_protocol::devices::MAX_DEVICES {
        return Err(ErrorCode::DeviceLimitReached.into());
    }
    Ok(())
}

/// Registers a device, within the account's device limit (checked in the same transaction,
/// so concurrent enrolments cannot overshoot it).
fn insert_device(tx: &Connection, d: &NewDevice) -> DeviceResult<()> {
    below_device_limit(tx, &d.account_id)?;
    devices::insert(
        tx,
        devices::NewDevice {
            account: &d.account_id,
            id: &d.device_id,
            certificate: &d.certificate,
            name: &d.name,
            platform: &d.platform,
            token_hash: &d.token_hash,
            now_ms: d.now.timestamp_millis(),
        },
    )
    .map_err(|e| match e {
        StoreError::DeviceExists => ErrorCode::InvalidRequest.into(),
        other => other.into(),
    })
}

fn put_backup(
    tx: &Connection,
    account: &AccountId,
    backup: &RecoveryBackup,
    now_ms: i64,
) -> DeviceResult<()> {
    let taken: Option<String> = tx
        .query_row(
            "SELECT account_id FROM recovery_backups WHERE recovery_key_id = ?1",
            [backup.recovery_key_id.as_str()],
            |r| r.get(0),
        )
        .optional()?;
    if taken.is_some_and(|owner| owner != account.as_str()) {
        return Err(ErrorCode::InvalidRequest.into());
    }
    Ok(backups::put(tx, account, backup, now_ms)?)
}

/// Deletes every row of `account` from every table that has an `account_id` column (so tables
/// added later by other features are covered), plus idempotency keys of its messages.
/// Foreign keys are checked at commit. Returns the ids of the account's files (their bytes
/// live outside the database).
fn delete_account(tx: &Connection, account: &AccountId) -> DeviceResult<Vec<String>> {
    tx.pragma_update(None, "defer_foreign_keys", "ON")?;
    let has_files: bool = tx.query_row(
        "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'files')",
        [],
        |r| r.get(0),
    )?;
    let files: Vec<String> = if has_files {
        let mut stmt = tx.prepare("SELECT id FROM files WHERE account_id = ?1")?;
        let rows = stmt.query_map([account.as_str()], |r| r.get(0))?;
        rows.collect::<rusqlite::Result<_>>()?
    } else {
        Vec::new()
    };
    tx.execute(
        "DELETE FROM idempotency WHERE message_id IN
             (SELECT id FROM messages WHERE account_id = ?1)",
        [account.as_str()],
    )?;
    let tables: Vec<String> = {
        let mut stmt = tx.prepare(
            "SELECT m.name FROM sqlite_master m
             WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%' AND m.name <> 'accounts'
               AND EXISTS (SELECT 1 FROM pragma_table_info(m.name) c WHERE c.name = 'account_id')",
        )?;
        let rows = stmt.query_map([], |r| r.get(0))?;
        rows.collect::<rusqlite::Result<_>>()?
    };
    for table in tables {
        // Table names come from sqlite_master, not from input; quoted all the same.
        let sql = format!(
            "DELETE FROM \"{}\" WHERE account_id = ?1",
            table.replace('"', "\"\"")
        );
        tx.execute(&sql, [account.as_str()])?;
    }
    tx.execute("DELETE FROM accounts WHERE id = ?1", [account.as_str()])?;
    Ok(files)
}

impl DeviceStore for SqliteStore {
    fn backup_by_key_id(&self, key_id: &str) -> DeviceResult<Option<(AccountId, RecoveryBackup)>> {
        self.read_devices(|c| {
            let account: Option<String> = c
                .query_row(
                    "SELECT account_id FROM recovery_backups WHERE recovery_key_id = ?1",
                    [key_id],
                    |r| r.get(0),
                )
                .optional()?;
            let Some(account) = account else {
                return Ok(None);
            };
            let account: AccountId = parse_id(&account)?;
            Ok(backups::get(c, &account)?.map(|b| (account, b)))
        })
    }

    fn statement(&self, account: &AccountId) -> DeviceResult<Option<Certificate>> {
        self.read_devices(|c| Ok(accounts::statement(c, account)?))
    }

    fn enrol_device(&self, new: NewDevice) -> DeviceResult<()> {
        self.write_devices(|tx| {
            if accounts::statement(tx, &new.account_id)?.is_none() {
                return Err(ErrorCode::NotFound.into());
            }
            insert_device(tx, &new)
        })
    }

    fn list_devices(&self, account: &AccountId) -> DeviceResult<Vec<DeviceRow>> {
        self.read_devices(|c| {
            let mut stmt = c.prepare_cached(
                "SELECT id, name, platform, certificate, created_at_ms, last_seen_ms,
                        revoked_at_ms
                 FROM devices WHERE account_id = ?1 ORDER BY created_at_ms, id",
            )?;
            let rows = stmt.query_map([account.as_str()], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, String>(3)?,
                    r.get::<_, i64>(4)?,
                    r.get::<_, i64>(5)?,
                    r.get::<_, Option<i64>>(6)?,
                ))
            })?;
            rows.map(|r| {
                let (id, name, platform, cert, created, seen, revoked) = r?;
                Ok(DeviceRow {
                    id: parse_id(&id)?,
                    name,
                    platform,
                    certificate: cert_from_json(&cert)?,
                    created_at: from_millis(created)?,
                    last_seen: from_millis(seen)?,
                    revoked_at: revoked.map(from_millis).transpose()?,
                })
            })
            .collect()
        })
    }

    fn revoke_device(&self, r: Rotation) -> DeviceResult<()> {
        let now_ms = r.now.timestamp_millis();
        self.write_devices(|tx| {
            let live = devices::live_ids(tx, &r.account_id)?;
            if !live.contains(r.target.as_str()) {
                return Err(ErrorCode::NotFound.into());
            }
            let current: Option<u32> = tx.query_row(
                "SELECT MAX(epoch) FROM encryption_keys WHERE account_id = ?1",
                [r.account_id.as_str()],
                |row| row.get(0),
            )?;
            if Some(r.epoch) != current.map(|e| e + 1) {
                return Err(ErrorCode::KeysChanged.into());
            }
            let remaining: BTreeSet<&str> = live
                .iter()
                .map(String::as_str)
                .filter(|id| *id != r.target.as_str())
                .collect();
            let covered: BTreeSet<&str> = r.bundles.iter().map(|(id, _)| id.as_str()).collect();
            if covered != remaining || covered.len() != r.bundles.len() {
                return Err(ErrorCode::KeysChanged.into());
            }
            devices::revoke(tx, &r.target, now_ms)?;
            encryption_keys::insert(tx, &r.account_id, r.epoch, &r.encryption_key, now_ms)?;
            tx.execute(
                "DELETE FROM device_bundles WHERE device_id = ?1",
                [r.target.as_str()],
            )?;
            for (device, sealed) in &r.bundles {
                tx.execute(
                    "INSERT INTO device_bundles (device_id, account_id, epoch, sealed_bundle,
                                                 created_at_ms)
                     VALUES (?1, ?2, ?3, ?4, ?5)
                     ON CONFLICT(device_id) DO UPDATE SET epoch = excluded.epoch,
                         sealed_bundle = excluded.sealed_bundle,
                         created_at_ms = excluded.created_at_ms",
                    params![
                        device.as_str(),
                        r.account_id.as_str(),
                        r.epoch,
                        sealed,
                        now_ms
                    ],
                )?;
            }
            if let Some(backup) = &r.backup {
                put_backup(tx, &r.account_id, backup, now_ms)?;
            }
            Ok(())
        })
    }

    fn device_bundle(&self, device: &DeviceId) -> DeviceResult<Option<DeviceBundleRow>> {
        self.read_devices(|c| {
            let row: Option<(u32, String, i64)> = c
                .query_row(
                    "SELECT epoch, sealed_bundle, created_at_ms FROM device_bundles
                     WHERE device_id = ?1",
                    [device.as_str()],
                    |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
                )
                .optional()?;
            row.map(|(epoch, sealed_bundle, created)| {
                Ok(DeviceBundleRow {
                    epoch,
                    sealed_bundle,
                    created_at: from_millis(created)?,
                })
            })
            .transpose()
        })
    }

    fn reset_account(
        &self,
        old: &AccountId,
        new: NewAccount,
        backup: &RecoveryBackup,
    ) -> DeviceResult<Vec<String>> {
        let now_ms = new.now.timestamp_millis();
        self.write_devices(|tx| {
            if accounts::statement(tx, old)?.is_none() {
                return Err(ErrorCode::NotFound.into());
            }
            let files = delete_account(tx, old)?;
            accounts::insert(tx, &new.account_id, &new.statement, now_ms).map_err(|e| match e {
                StoreError::AccountExists => ErrorCode::AccountExists.into(),
                other => crate::store::devices::DeviceError::from(other),
            })?;
            encryption_keys::insert(
                tx,
                &new.account_id,
                new.encryption_key_epoch,
                &new.encryption_key,
                now_ms,
            )?;
            insert_device(
                tx,
                &NewDevice {
                    account_id: new.account_id.clone(),
                    device_id: new.device_id.clone(),
                    certificate: new.device.clone(),
                    name: new.device_name.clone(),
                    platform: new.device_platform.clone(),
                    token_hash: new.device_token_hash,
                    now: new.now,
                },
            )?;
            put_backup(tx, &new.account_id, backup, now_ms)?;
            Ok(files)
        })
    }

    fn create_pairing(&self, new: NewPairing) -> DeviceResult<()> {
        self.write_devices(|tx| pairings::insert(tx, &new))
    }

    fn sweep_pairings(&self, before: DateTime<Utc>) -> DeviceResult<usize> {
        self.write_devices(|tx| {
            Ok(tx.execute(
                "DELETE FROM pairings WHERE expires_at_ms < ?1",
                [before.timestamp_millis()],
            )?)
        })
    }

    fn pending_pairings(&self, now: DateTime<Utc>) -> DeviceResult<Vec<PairingRow>> {
        self.read_devices(|c| pairings::pending(c, now.timestamp_millis()))
    }

    fn pairing(&self, id: &PairingId) -> DeviceResult<Option<PairingRow>> {
        self.read_devices(|c| pairings::get(c, id))
    }

    fn respond_pairing(&self, response: PairingResponse) -> DeviceResult<()> {
        // Refused early too, so nobody types a code for a pairing that cannot complete.
        // The request's own state is reported first.
        self.write_devices(|tx| {
            let now_ms = response.now.timestamp_millis();
            pairings::require(tx, &response.id, PairingStatus::Pending, now_ms)?;
            below_device_limit(tx, &response.account_id)?;
            pairings::respond(tx, &response)
        })
    }

    fn confirm_pairing(
        &self,
        id: &PairingId,
        confirmation: &str,
        now: DateTime<Utc>,
    ) -> DeviceResult<()> {
        self.write_devices(|tx| pairings::confirm(tx, id, confirmation, now.timestamp_millis()))
    }

    fn fail_pairing(&self, id: &PairingId, _now: DateTime<Utc>) -> DeviceResult<()> {
        self.write_devices(|tx| pairings::fail(tx, id))
    }

    fn complete_pairing(
        &self,
        id: &PairingId,
        device: NewDevice,
        sealed_bundle: &str,
    ) -> DeviceResult<()> {
        let now_ms = device.now.timestamp_millis();
        self.write_devices(|tx| {
            let p = pairings::require(tx, id, PairingStatus::Confirmed, now_ms)?;
            if p.account_id.as_ref() != Some(&device.account_id) {
                return Err(ErrorCode::NotFound.into());
            }
            insert_device(tx, &device)?;
            pairings::complete(
                tx,
                id,
                device.device_id.as_str(),
                &device.certificate,
                sealed_bundle,
            )
        })
    }

    fn collect_pairing_session(
        &self,
        id: &PairingId,
        token_hash: &TokenHash,
    ) -> DeviceResult<bool> {
        self.write_devices(|tx| {
            let Some(p) = pairings::get(tx, id)? else {
                return Ok(false);
            };
            let Some(device) = p.device_id else {
                return Ok(false);
            };
            if !pairings::mark_collected(tx, id)? {
                return Ok(false);
            }
            devices::set_token_hash(tx, &device, token_hash)?;
            Ok(true)
        })
    }
}
