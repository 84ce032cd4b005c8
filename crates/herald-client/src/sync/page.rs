//! One page of the message feed, opened and announced: the CPU-heavy half of a catch-up.
//!
//! Opening a record (signature check, HPKE decryption, validation, re-sealing under the local
//! key; [`Session::process`]) is independent per record, so a page is split into contiguous
//! chunks opened on separate tasks — on a multi-thread runtime they run on separate cores —
//! and the rows come back in the page's order. Each record is still verified exactly as one
//! at a time would be. After the page is stored, its rows are read back with one cache call
//! and announced to the UI in order (docs/benchmarks.md, "Device core and files").

use std::sync::Arc;

use herald_crypto::LocalKey;
use herald_protocol::wire::MessageRecord;

use crate::cache::StoredRecord;
use crate::context::Store;
use crate::session::Session;
use crate::view::CoreEvent;
use crate::{view::present, Error, Result};

/// Records per task at least: smaller pages (a live update is usually one record) are opened
/// inline, where a task hop would cost more than it saves.
const MIN_CHUNK: usize = 8;
/// Most tasks one page is split into.
const MAX_TASKS: usize = 8;

/// Opens every record of a page into a cache row, in order. Fails only as
/// [`Session::process`] does (the relay unreachable while refreshing keys).
pub(crate) async fn process_page(
    local: &LocalKey,
    session: &Arc<Session>,
    records: &[MessageRecord],
) -> Result<Vec<StoredRecord>> {
    let tasks = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(MAX_TASKS)
        .min(records.len() / MIN_CHUNK);
    if tasks < 2 {
        let mut rows = Vec::with_capacity(records.len());
        for record in records {
            rows.push(session.process(local, record).await?);
        }
        return Ok(rows);
    }
    // Loaded once here, so the tasks do not all fetch `GET /keys` at the same time; an
    // error is left for `process` to report per record, as it would one at a time.
    let _ = session.directory(false).await;
    let chunk = records.len().div_ceil(tasks);
    let handles: Vec<_> = records
        .chunks(chunk)
        .map(|part| {
            let (session, local, part) = (session.clone(), local.clone(), part.to_vec());
            tokio::spawn(async move {
                let mut rows = Vec::with_capacity(part.len());
                for record in &part {
                    rows.push(session.process(&local, record).await?);
                }
                Ok::<_, Error>(rows)
            })
        })
        .collect();
    let mut rows = Vec::with_capacity(records.len());
    for handle in handles {
        let part = handle
            .await
            .map_err(|e| Error::Storage(format!("opening task failed: {e}")))??;
        rows.extend(part);
    }
    Ok(rows)
}

/// Announces the stored `rows` (`fresh`: whether each was new to this cache) to the UI, in
/// order, reading them back from the cache in one call. Rows that cannot be read back are not
/// announced (the UI reloads the inbox from the cache on its own).
pub(crate) async fn announce_page(store: &Store, rows: &[StoredRecord], fresh: Vec<bool>) {
    if store.events.receiver_count() == 0 {
        return; // nobody listens (`herald inbox`); the cache is the truth anyway
    }
    let ids: Vec<String> = rows.iter().map(|r| r.id.clone()).collect();
    let cached = match store.cache_call(move |c| c.get_many(&ids)).await {
        Ok(cached) => cached,
        Err(e) => {
            tracing::debug!(code = %e.code(), "stored page not read back for the UI");
            return;
        }
    };
    for (row, is_new) in cached.into_iter().zip(fresh) {
        if let Some(row) = row {
            let message = present::summary(&store.local.key, &row);
            let _ = store
                .events
                .send(CoreEvent::MessageUpserted { message, is_new });
        }
    }
}
