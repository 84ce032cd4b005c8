//! Rendered message bodies (`MessageView::body_html`), kept in memory so that re-opening a
//! message does not render its Markdown again.
//!
//! A message's body never changes for a given id (the relay's records are immutable; only
//! status and answer change), so the id alone is the key. The cache is bounded by the total
//! bytes of HTML it holds ([`DEFAULT_MAX_BYTES`]), evicting the least recently used bodies;
//! a single body larger than the bound is not kept. Entries are `Arc<str>`, so a hit costs a
//! clone of the string for the view, not a render.
//!
//! Each entry records whether it is the *full* render (every code block highlighted,
//! `herald_render::markdown_to_html_full`) or the budgeted first paint
//! (`herald_render::markdown_to_html`, which may leave blocks `highlight-skipped`); see
//! `Core::message` for how the first is replaced by the second in the background.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Arc;

/// Default bound on the HTML bytes the cache holds: 8 MiB, a few thousand ordinary
/// messages or a few hundred long reports.
pub const DEFAULT_MAX_BYTES: usize = 8 * 1024 * 1024;

/// One rendered body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RenderedBody {
    /// Sanitized HTML, as in `MessageView::body_html`.
    pub(crate) html: Arc<str>,
    /// True when this is the final render: every code block the per-block limits allow is
    /// highlighted, so there is nothing left to do for this message.
    pub(crate) full: bool,
}

/// Byte-bounded least-recently-used map from message id to its rendered body, plus the set
/// of ids whose full render is running. Not synchronized: the core keeps it behind a mutex
/// and never holds that across an `.await` or a render.
#[derive(Debug)]
pub(crate) struct RenderCache {
    max_bytes: usize,
    bytes: usize,
    entries: HashMap<String, RenderedBody>,
    /// Ids, least recently used first. Holds each id of `entries` exactly once; touching
    /// an entry moves it to the back (O(n), n ≤ a few thousand, negligible next to a render).
    order: VecDeque<String>,
    /// Ids whose full render was started and has not been stored yet.
    pending: HashSet<String>,
}

impl Default for RenderCache {
    fn default() -> Self {
        Self::with_max_bytes(DEFAULT_MAX_BYTES)
    }
}

impl RenderCache {
    /// An empty cache holding at most `max_bytes` bytes of HTML.
    pub(crate) fn with_max_bytes(max_bytes: usize) -> Self {
        RenderCache {
            max_bytes,
            bytes: 0,
            entries: HashMap::new(),
            order: VecDeque::new(),
            pending: HashSet::new(),
        }
    }

    /// The body of `id`, marking it most recently used.
    pub(crate) fn get(&mut self, id: &str) -> Option<RenderedBody> {
        let body = self.entries.get(id)?.clone();
        self.touch(id);
        Some(body)
    }

    /// Stores the body of `id`, replacing an older one (a full render replaces the budgeted
    /// one; a budgeted render never replaces a full one), then evicts least recently used
    /// bodies until the total is within the bound. A body over the bound is not stored.
    pub(crate) fn insert(&mut self, id: &str, body: RenderedBody) {
        if body.html.len() > self.max_bytes {
            return;
        }
        if let Some(old) = self.entries.get(id) {
            if old.full && !body.full {
                self.touch(id);
                return;
            }
            self.bytes -= old.html.len();
            self.touch(id);
        } else {
            self.order.push_back(id.to_owned());
        }
        self.bytes += body.html.len();
        self.entries.insert(id.to_owned(), body);
        while self.bytes > self.max_bytes {
            let Some(oldest) = self.order.pop_front() else {
                break;
            };
            if let Some(evicted) = self.entries.remove(&oldest) {
                self.bytes -= evicted.html.len();
            }
        }
    }

    /// Marks the full render of `id` as started; false if it already was (start nothing).
    pub(crate) fn start_full(&mut self, id: &str) -> bool {
        self.pending.insert(id.to_owned())
    }

    /// Marks the full render of `id` as finished (stored or failed).
    pub(crate) fn finish_full(&mut self, id: &str) {
        self.pending.remove(id);
    }

    /// Total HTML bytes held.
    #[cfg(test)]
    pub(crate) fn bytes(&self) -> usize {
        self.bytes
    }

    fn touch(&mut self, id: &str) {
        if let Some(at) = self.order.iter().position(|k| k == id) {
            if let Some(key) = self.order.remove(at) {
                self.order.push_back(key);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(len: usize, full: bool) -> RenderedBody {
        RenderedBody {
            html: "x".repeat(len).into(),
            full,
        }
    }

    #[test]
    fn total_bytes_stay_within_the_bound_evicting_least_recently_used() {
        let mut cache = RenderCache::with_max_bytes(1000);
        for id in ["a", "b", "c"] {
            cache.insert(id, body(300, false));
        }
        assert_eq!(cache.bytes(), 900);
        // Using "a" makes "b" the least recently used.
        assert!(cache.get("a").is_some());
        cache.insert("d", body(300, false));
        assert!(cache.bytes() <= 1000);
        assert_eq!(cache.bytes(), 900);
        assert!(cache.get("b").is_none(), "least recently used was evicted");
        for id in ["a", "c", "d"] {
            assert!(cache.get(id).is_some(), "{id} kept");
        }
        // One large body evicts as many as needed.
        cache.insert("e", body(900, false));
        assert_eq!(cache.bytes(), 900);
        assert!(cache.get("e").is_some());
        assert!(["a", "c", "d"].iter().all(|id| cache.get(id).is_none()));
    }

    #[test]
    fn many_inserts_never_exceed_the_bound() {
        let mut cache = RenderCache::with_max_bytes(10_000);
        for i in 0..1000 {
            cache.insert(&format!("m{i}"), body(1 + (i * 37) % 900, i % 2 == 0));
            assert!(cache.bytes() <= 10_000);
            let held: usize = cache.entries.values().map(|b| b.html.len()).sum();
            assert_eq!(held, cache.bytes());
            assert_eq!(cache.order.len(), cache.entries.len());
        }
    }

    #[test]
    fn a_body_over_the_bound_is_not_kept() {
        let mut cache = RenderCache::with_max_bytes(100);
        cache.insert("small", body(50, false));
        cache.insert("huge", body(101, true));
        assert!(cache.get("huge").is_none());
        assert!(cache.get("small").is_some());
        assert_eq!(cache.bytes(), 50);
    }

    #[test]
    fn full_render_replaces_the_budgeted_one_and_not_the_reverse() {
        let mut cache = RenderCache::with_max_bytes(1000);
        cache.insert("m", body(100, false));
        cache.insert("m", body(200, true));
        assert_eq!(cache.get("m"), Some(body(200, true)));
        assert_eq!(cache.bytes(), 200);
        cache.insert("m", body(100, false));
        assert_eq!(cache.get("m"), Some(body(200, true)));
        assert_eq!(cache.bytes(), 200);
        assert_eq!(cache.order.len(), 1);
    }

    #[test]
    fn a_full_render_is_started_once_until_finished() {
        let mut cache = RenderCache::default();
        assert!(cache.start_full("m"));
        assert!(!cache.start_full("m"));
        cache.finish_full("m");
        assert!(cache.start_full("m"));
    }
}
