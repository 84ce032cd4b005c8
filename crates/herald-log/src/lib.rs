//! Log setup shared by the Herald binaries (`herald-relay`, `herald`, the desktop app).
//!
//! Our own code never logs a token, key, code, secret value or message text. Some
//! dependencies do at their verbose levels, and `RUST_LOG=trace` turns those on:
//! html5ever (behind ammonia, in `herald-render`) logs every character and text node of the
//! message it sanitizes, tungstenite logs the websocket handshake request with its
//! `Authorization: Bearer …` header and every frame's payload, `tts` logs the text it speaks,
//! rmcp logs whole MCP requests and results. [`GUARDED_TARGETS`] caps each of those targets
//! at the most verbose level that is still free of content; [`layer`] applies the cap after
//! the caller's [`EnvFilter`], so no `RUST_LOG` / `HERALD_LOG` value can lift it (not even a
//! more specific directive such as `html5ever::tokenizer=trace`).
//!
//! The desktop end-to-end test runs every process at `trace` and fails if any log holds a
//! secret or the plaintext it sent (docs/security-tests.md).

use std::io::IsTerminal;

use tracing::level_filters::LevelFilter;
use tracing::{Metadata, Subscriber};
use tracing_subscriber::filter::{EnvFilter, FilterExt, FilterFn};
use tracing_subscriber::fmt::MakeWriter;
use tracing_subscriber::layer::{Layer, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::util::SubscriberInitExt;

/// Log targets (a crate, and every module under it) with the most verbose level each may
/// log at, and why. Events above that level are dropped whatever the filter says.
pub const GUARDED_TARGETS: &[(&str, LevelFilter)] = &[
    // debug: "processing Characters(… text …)"; trace: every character of the input.
    ("html5ever", LevelFilter::INFO),
    ("markup5ever", LevelFilter::INFO),
    // trace: the client handshake request with its Authorization header; frame payloads.
    ("tungstenite", LevelFilter::DEBUG),
    ("tokio_tungstenite", LevelFilter::DEBUG),
    // trace: `speak(text, …)`, the words read aloud.
    ("tts", LevelFilter::INFO),
    // debug and info: whole JSON-RPC requests and results, with message content.
    ("rmcp", LevelFilter::WARN),
];

/// Whether an event or span of `target` at `level` may be logged under [`GUARDED_TARGETS`].
/// `target` is a module path (`html5ever::tokenizer`); a guarded crate's own modules are
/// guarded with it, a crate whose name merely starts the same way (`tts_extra`) is not.
pub fn allowed(target: &str, level: &tracing::Level) -> bool {
    GUARDED_TARGETS.iter().all(|(guarded, max)| {
        let inside = target
            .strip_prefix(guarded)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with("::"));
        !inside || *level <= *max
    })
}

fn guarded(meta: &Metadata<'_>) -> bool {
    allowed(meta.target(), meta.level())
}

/// A formatting layer writing to `writer` that logs what `filter` enables and
/// [`allowed`] permits. `ansi`: colour codes in the output.
pub fn layer<S, W>(filter: EnvFilter, ansi: bool, writer: W) -> impl Layer<S>
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    W: for<'w> MakeWriter<'w> + Send + Sync + 'static,
{
    tracing_subscriber::fmt::layer()
        .with_writer(writer)
        .with_ansi(ansi)
        .with_filter(filter.and(FilterFn::new(guarded)))
}

/// Installs the global logger: standard error, coloured when it is a terminal, with `filter`
/// and the guard. Call once, first thing in `main`.
pub fn init(filter: EnvFilter) {
    let ansi = std::io::stderr().is_terminal();
    tracing_subscriber::registry()
        .with(layer(filter, ansi, std::io::stderr))
        .init();
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::sync::{Arc, Mutex};

    use super::*;

    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);

    impl Write for Captured {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().expect("lock").extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    impl<'w> MakeWriter<'w> for Captured {
        type Writer = Captured;
        fn make_writer(&'w self) -> Self::Writer {
            self.clone()
        }
    }

    fn logged_with(filter: &str, emit: impl FnOnce()) -> String {
        let out = Captured::default();
        let subscriber =
            tracing_subscriber::registry().with(layer(EnvFilter::new(filter), false, out.clone()));
        tracing::subscriber::with_default(subscriber, emit);
        let bytes = out.0.lock().expect("lock").clone();
        String::from_utf8(bytes).expect("utf-8")
    }

    #[test]
    fn trace_everywhere_still_keeps_guarded_targets_quiet() {
        let out = logged_with("trace,html5ever::tokenizer=trace", || {
            tracing::trace!(target: "html5ever::tokenizer", "got character SECRET-1");
            tracing::debug!(target: "html5ever::tree_builder", "processing Characters(SECRET-2)");
            tracing::trace!(target: "tungstenite::handshake::client", "Request: authorization: Bearer SECRET-3");
            tracing::trace!(target: "tts::backends::speech_dispatcher", "speak(SECRET-4)");
            tracing::info!(target: "rmcp::service", "request SECRET-5");
            tracing::trace!(target: "herald_client::sync", "KEPT-1");
            tracing::debug!(target: "tungstenite::protocol", "KEPT-2");
            tracing::warn!(target: "html5ever::tokenizer", "KEPT-3");
            tracing::trace!(target: "tts_extra", "KEPT-4");
        });
        assert!(
            !out.contains("SECRET"),
            "a guarded event was logged:\n{out}"
        );
        for kept in ["KEPT-1", "KEPT-2", "KEPT-3", "KEPT-4"] {
            assert!(out.contains(kept), "{kept} is missing:\n{out}");
        }
    }

    #[test]
    fn the_callers_filter_still_applies() {
        let out = logged_with("warn", || {
            tracing::info!(target: "herald_relay", "DROPPED");
            tracing::warn!(target: "herald_relay", "KEPT");
        });
        assert!(out.contains("KEPT") && !out.contains("DROPPED"), "{out}");
    }

    #[test]
    fn allowed_matches_whole_path_segments() {
        use tracing::Level;
        assert!(!allowed("html5ever", &Level::DEBUG));
        assert!(!allowed("html5ever::tokenizer::char_ref", &Level::DEBUG));
        assert!(allowed("html5ever::tokenizer", &Level::INFO));
        assert!(allowed("html5everish", &Level::TRACE));
        assert!(allowed("herald_relay::ws", &Level::TRACE));
    }
}
