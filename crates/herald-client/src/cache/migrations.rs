//! Numbered cache migrations, applied in a transaction by rusqlite_migration. Never edit one
//! that has landed: add the next.

use rusqlite::Connection;
use rusqlite_migration::{Migrations, M};

const MIGRATIONS: &[M<'static>] = &[
    // 1: the cursor and the messages.
    M::up(
        "CREATE TABLE sync_state (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        cursor INTEGER NOT NULL
    );
    INSERT INTO sync_state (id, cursor) VALUES (1, 0);
    CREATE TABLE messages (
        id TEXT PRIMARY KEY,
        revision INTEGER NOT NULL,
        status TEXT NOT NULL,
        expects_answer INTEGER NOT NULL,
        sender_name TEXT NOT NULL,
        created_at TEXT NOT NULL,
        expires_at TEXT,
        sealed_title BLOB,
        sealed_content BLOB,
        sealed_answer BLOB,
        answered_at TEXT,
        error TEXT,
        unread INTEGER NOT NULL DEFAULT 1
    );
    CREATE INDEX messages_by_created ON messages (created_at DESC, id);",
    ),
    // 2: threads (relay-assigned thread id and position, and the replied-to message).
    M::up(
        "ALTER TABLE messages ADD COLUMN thread_id TEXT;
    ALTER TABLE messages ADD COLUMN thread_sequence INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE messages ADD COLUMN reply_to TEXT;
    CREATE INDEX messages_by_thread ON messages (thread_id, thread_sequence);",
    ),
    // 3: the relay's `kind` (`message`, or `secret` for a secret offer). Rows cached before
    // it get revision 0 and the cursor goes back to 0, so the next catch-up re-reads the
    // history and stores every row's kind (read state is kept: upserts leave `unread`).
    M::up(
        "ALTER TABLE messages ADD COLUMN kind TEXT NOT NULL DEFAULT 'message';
    UPDATE messages SET revision = 0;
    UPDATE sync_state SET cursor = 0 WHERE id = 1;",
    ),
    // 4: notifications from agents (docs/agents.md) with their own cursor. Content and the
    // reply this device sent are sealed under the local key; receipt metadata is in the clear.
    M::up(
        "CREATE TABLE notifications (
        id TEXT PRIMARY KEY,
        revision INTEGER NOT NULL,
        notification_id TEXT NOT NULL,
        source_kind TEXT NOT NULL,
        source_name TEXT NOT NULL,
        received_at TEXT NOT NULL,
        expect_reply INTEGER NOT NULL,
        suppressed INTEGER NOT NULL,
        displayed_at TEXT,
        spoken_at TEXT,
        replied_at TEXT,
        sealed_content BLOB,
        sealed_reply BLOB,
        error TEXT,
        unread INTEGER NOT NULL DEFAULT 1
    );
    CREATE INDEX notifications_by_received ON notifications (received_at DESC, id);
    CREATE TABLE notification_sync (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        cursor INTEGER NOT NULL
    );",
    ),
    // 5: answers waiting for the relay (outbox.rs): one per request, sealed under the local key.
    M::up(
        "CREATE TABLE answer_outbox (
        message_id TEXT PRIMARY KEY,
        queued_at TEXT NOT NULL,
        sealed_answer BLOB NOT NULL
    );",
    ),
    // 6: unread rows in inbox order, so a page of the inbox counts the unread rows older than
    // it without reading every row (summaries.rs).
    M::up("CREATE INDEX messages_unread ON messages (created_at, id) WHERE unread = 1;"),
    // 7: when this device last finished a catch-up with the relay (RFC 3339, relay clock), so
    // a command reading the cache while the relay is out of reach can say how old it is.
    M::up("ALTER TABLE sync_state ADD COLUMN synced_at TEXT;"),
    // 8: who sent a message (the connection's or device's id) and a notification (the agent
    // key's or connector's id), so the desktop can mute one sender's banners. Rows cached
    // before it keep NULL: only new arrivals get banners, so nothing is read again.
    M::up(
        "ALTER TABLE messages ADD COLUMN sender_id TEXT;
    ALTER TABLE notifications ADD COLUMN source_id TEXT;",
    ),
];

/// Brings the database to the latest schema, keeping the migration error (the cache tells
/// damage from a locked database by it).
pub fn apply_checked(c: &mut Connection) -> std::result::Result<(), rusqlite_migration::Error> {
    Migrations::from_slice(MIGRATIONS).to_latest(c)
}

/// Brings the database to migration `n` only (tests of later migrations start from there).
#[cfg(test)]
pub(super) fn apply_first(c: &mut Connection, n: usize) -> crate::Result<()> {
    Migrations::from_slice(&MIGRATIONS[..n])
        .to_latest(c)
        .map_err(|e| crate::Error::Storage(format!("cache migration: {e}")))
}

#[cfg(test)]
mod tests {
    #[test]
    fn migrations_are_valid() {
        assert!(
            rusqlite_migration::Migrations::from_slice(super::MIGRATIONS)
                .validate()
                .is_ok(),
            "every migration applies to an empty database"
        );
    }
}
