//! Rows this device could not open yet: a message that failed to verify or decrypt, or an
//! answer that did not open (say, sealed to an account key this device had not learned yet).
//! They are read again from the relay once something that could change the outcome changed
//! (sync.rs), instead of staying broken until the record's next revision.

use rusqlite::{params, OptionalExtension};

use super::{lock, rows, Cache, StoredRecord};
use crate::Result;

impl Cache {
    /// Ids of rows whose message did not open (no sealed content, an error) or whose answer
    /// did not open (answered, no sealed answer), newest first, at most `limit`.
    pub fn unopened(&self, limit: u32) -> Result<Vec<String>> {
        let c = lock(&self.reader);
        let mut stmt = c.prepare_cached(
            "SELECT id FROM messages
             WHERE (sealed_content IS NULL AND error IS NOT NULL)
                OR (answered_at IS NOT NULL AND sealed_answer IS NULL)
             ORDER BY created_at DESC, id DESC LIMIT ?1",
        )?;
        let ids = stmt.query_map([limit], |r| r.get(0))?;
        Ok(ids.collect::<rusqlite::Result<_>>()?)
    }

    /// Stores `record`, read again, over the stored row of the same or an older revision
    /// (read state kept). Returns whether it was stored (false when the stored row is newer).
    pub fn reopen_record(&self, record: &StoredRecord) -> Result<bool> {
        let c = lock(&self.writer);
        let existing: Option<i64> = c
            .query_row(
                "SELECT revision FROM messages WHERE id = ?1",
                params![record.id],
                |row| row.get(0),
            )
            .optional()?;
        if existing.is_some_and(|rev| rev as u64 > record.revision.0) {
            return Ok(false);
        }
        rows::upsert(&c, record)?;
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use herald_protocol::wire::MessageStatus;
    use herald_protocol::Revision;

    use super::*;

    fn row(id: &str, revision: u64) -> StoredRecord {
        StoredRecord {
            id: id.into(),
            revision: Revision(revision),
            status: MessageStatus::Answered,
            expects_answer: true,
            sender_name: "agent".into(),
            sender_id: Some("con_agent".into()),
            created_at: format!("2026-01-01T00:00:{revision:02}.000Z"),
            expires_at: None,
            sealed_title: Some(vec![1]),
            sealed_content: Some(vec![2]),
            sealed_answer: Some(vec![3]),
            answered_at: Some("2026-01-01T00:01:00.000Z".into()),
            error: None,
            thread_id: id.into(),
            thread_sequence: 0,
            reply_to: None,
            kind: "message".into(),
        }
    }

    #[test]
    fn unopened_rows_are_listed_and_replaced_at_the_same_revision() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::open(dir.path()).unwrap();
        let fine = row("fine", 1);
        let mut no_answer = row("no-answer", 2);
        no_answer.sealed_answer = None;
        let mut broken = row("broken", 3);
        broken.sealed_title = None;
        broken.sealed_content = None;
        broken.sealed_answer = None;
        broken.error = Some("could not be verified".into());
        let mut invalid = row("invalid", 4);
        invalid.error = Some("breaks the format".into());
        cache
            .store_page(&[fine, no_answer.clone(), broken, invalid], Revision(4))
            .unwrap();
        assert_eq!(
            cache.unopened(10).unwrap(),
            ["broken", "no-answer"],
            "opened rows (a format error included) are not read again"
        );
        assert_eq!(cache.unopened(1).unwrap(), ["broken"], "limit");

        assert!(cache.mark_read("no-answer").unwrap());
        let opened = row("no-answer", 2);
        assert!(
            cache.reopen_record(&opened).unwrap(),
            "same revision: stored"
        );
        let now = cache.get("no-answer").unwrap();
        assert_eq!(now.record.sealed_answer, Some(vec![3]));
        assert!(!now.unread, "read state kept");
        assert_eq!(cache.unopened(10).unwrap(), ["broken"]);
        assert!(
            !cache.reopen_record(&row("broken", 2)).unwrap(),
            "an older revision never replaces a newer row"
        );
    }
}
