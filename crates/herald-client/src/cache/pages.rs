//! Reading back a stored page at once: the sync engine announces every record of a page it
//! stored, and one reader lock with one prepared statement for the whole page costs far less
//! than a blocking-pool hop and a statement per record (docs/benchmarks.md, cold sync).

use super::{lock, rows, Cache, CachedMessage};
use crate::Result;

impl Cache {
    /// The cached rows of `ids`, in the same order; `None` where a row is missing. Uses the
    /// reader connection (never waits on the sync writer).
    pub fn get_many(&self, ids: &[String]) -> Result<Vec<Option<CachedMessage>>> {
        let c = lock(&self.reader);
        ids.iter().map(|id| rows::get(&c, id)).collect()
    }
}
