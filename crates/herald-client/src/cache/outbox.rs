//! The `answer_outbox` table: answers this device could not post because the relay was out
//! of reach, one per request (the request's id is the key: the relay accepts one answer per
//! request, so a second queued answer could never land). The answer is stored sealed under
//! the local key; the row leaves the table once the relay took the answer or said why it
//! never will (answered elsewhere, expired, cancelled).

use rusqlite::{params, OptionalExtension};

use super::{lock, Cache};
use crate::Result;

impl Cache {
    /// Queues `sealed` (the answer sealed under the local key) for request `id`; `queued_at`
    /// is this device's clock (RFC 3339), for ordering and display only. Returns false, and
    /// keeps the first, when an answer to `id` is queued already.
    pub fn queue_answer(&self, id: &str, queued_at: &str, sealed: &[u8]) -> Result<bool> {
        let n = lock(&self.writer).execute(
            "INSERT INTO answer_outbox (message_id, queued_at, sealed_answer) VALUES (?1, ?2, ?3)
             ON CONFLICT(message_id) DO NOTHING",
            params![id, queued_at, sealed],
        )?;
        Ok(n == 1)
    }

    /// Whether an answer to request `id` waits to be posted.
    pub fn has_queued_answer(&self, id: &str) -> Result<bool> {
        Ok(lock(&self.reader)
            .query_row(
                "SELECT 1 FROM answer_outbox WHERE message_id = ?1",
                [id],
                |_| Ok(()),
            )
            .optional()?
            .is_some())
    }

    /// The queued answers `(request id, sealed answer)`, oldest first.
    pub fn queued_answers(&self) -> Result<Vec<(String, Vec<u8>)>> {
        let c = lock(&self.reader);
        let mut stmt = c.prepare_cached(
            "SELECT message_id, sealed_answer FROM answer_outbox ORDER BY queued_at, message_id",
        )?;
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Removes the queued answer to `id` (posted, or refused for good).
    pub fn dequeue_answer(&self, id: &str) -> Result<()> {
        lock(&self.writer).execute("DELETE FROM answer_outbox WHERE message_id = ?1", [id])?;
        Ok(())
    }
}
