//! Message bodies: the first paint within the highlighting budget, full colour after it.
//!
//! `herald_render::markdown_to_html` colours only the first
//! `herald_render::MAX_HIGHLIGHT_BYTES_PER_MESSAGE` bytes of code of a message, so opening a
//! long report stays fast; later blocks are plain `highlight-skipped` code. When a body has
//! such blocks, [`Inner::render_body`] returns it as is and starts a full render
//! (`markdown_to_html_full`) on a blocking thread; when that is done it replaces the cached
//! body and the core emits [`CoreEvent::MessageRendered`], on which the UI fetches the
//! message again and swaps the body in. Every later open gets the full body from the
//! in-memory cache ([`RenderCache`], bounded by bytes) without rendering.

use std::sync::{Arc, MutexGuard};

use super::Inner;
use crate::view::render_cache::{RenderCache, RenderedBody};
use crate::view::CoreEvent;

/// How a `pre` left plain by a limit starts in sanitized output. Searched with the closing
/// quote and `>` so that the words in a message's text (where `>` is escaped) never match.
const SKIPPED_MARKER: &str = "highlight-skipped\">";

/// Whether rendered HTML has code blocks left uncoloured by a limit.
pub(crate) fn has_skipped_blocks(html: &str) -> bool {
    html.contains(SKIPPED_MARKER)
}

impl Inner {
    fn rendered(&self) -> MutexGuard<'_, RenderCache> {
        self.rendered.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Drops every cached body (the account's messages were forgotten).
    pub(crate) fn clear_rendered(&self) {
        *self.rendered() = RenderCache::default();
    }

    /// The `body_html` of message `id` whose Markdown is `body`: from the cache when it was
    /// rendered before, else rendered now within the highlighting budget and cached. When the
    /// result has skipped blocks and no full render of `id` is done or running, starts one
    /// (must be called inside the Tokio runtime). Never blocks on the full render.
    pub(crate) fn render_body(self: &Arc<Self>, id: &str, body: &str) -> String {
        let cached = self.rendered().get(id);
        let first = match cached {
            Some(RenderedBody { html, full: true }) => return html.to_string(),
            Some(RenderedBody { html, .. }) => html,
            None => {
                let html: Arc<str> = herald_render::markdown_to_html(body).into();
                let full = !has_skipped_blocks(&html);
                self.rendered().insert(
                    id,
                    RenderedBody {
                        html: html.clone(),
                        full,
                    },
                );
                if full {
                    return html.to_string();
                }
                html
            }
        };
        self.start_full_render(id, body);
        first.to_string()
    }

    /// Renders `body` fully on a blocking thread, stores it for `id` and emits
    /// `MessageRendered`, unless a full render of `id` is already running.
    fn start_full_render(self: &Arc<Self>, id: &str, body: &str) {
        if !self.rendered().start_full(id) {
            return;
        }
        let inner = self.clone();
        let id = id.to_owned();
        let body = body.to_owned();
        tokio::spawn(async move {
            let rendered =
                tokio::task::spawn_blocking(move || herald_render::markdown_to_html_full(&body))
                    .await;
            {
                let mut cache = inner.rendered();
                cache.finish_full(&id);
                match rendered {
                    Ok(html) => cache.insert(
                        &id,
                        RenderedBody {
                            html: html.into(),
                            full: true,
                        },
                    ),
                    Err(e) => {
                        // The budgeted body stays; the next open tries again.
                        tracing::warn!(error = %e, "full render of a message body failed");
                        return;
                    }
                }
            }
            let _ = inner.store.events.send(CoreEvent::MessageRendered { id });
        });
    }
}
