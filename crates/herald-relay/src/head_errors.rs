//! The shared error body for the answers hyper writes itself. hyper answers a request head it
//! cannot parse or accept — `400` (malformed request line or header), `414` (target too long),
//! `431` (head over [`HttpLimits::max_head_bytes`] or [`HttpLimits::max_headers`]) — before any
//! route runs, with an empty body, and offers no hook to change that answer. This layer sits
//! between hyper and the socket: a write that is exactly such an answer (the whole head of a
//! `400`, `414` or `431` with `content-length: 0`, nothing after it) goes out with the shared
//! body `{"error", "message"}` and `content-type: application/json` instead. Every other write
//! passes through untouched. Routes never answer those statuses with an empty body, so only
//! hyper's answers match. (A response body chunk of exactly those bytes written on its own
//! would be rewritten too; the relay's bodies are JSON and client-encrypted files, which a
//! sender could shape so only to corrupt its own download, caught by the file's SHA-256.)

use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use herald_protocol::{ErrorBody, ErrorCode};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use crate::http_server::HttpLimits;

/// A connection's socket with hyper's bare head errors given the shared body.
pub(crate) struct HeadErrorBody<S> {
    inner: S,
    /// The rewritten answer still to write, from `sent` on.
    pending: Vec<u8>,
    sent: usize,
    /// What to report to hyper once `pending` is out: the length of its own write.
    report: usize,
    limits: HttpLimits,
}

impl<S> HeadErrorBody<S> {
    pub(crate) fn new(inner: S, limits: HttpLimits) -> Self {
        HeadErrorBody {
            inner,
            pending: Vec::new(),
            sent: 0,
            report: 0,
            limits,
        }
    }
}

/// The shared body for one of hyper's statuses, or `None` for any other status.
fn body_for(status: &[u8], limits: &HttpLimits) -> Option<ErrorBody> {
    Some(match status {
        b"400" => ErrorBody::with_message(
            ErrorCode::BadRequest,
            "The request head could not be parsed: a malformed request line, method, target, \
             version or header line.",
        ),
        b"414" => ErrorBody::new(ErrorCode::UriTooLong),
        b"431" => ErrorBody::with_message(
            ErrorCode::RequestHeadTooLarge,
            format!(
                "The request head is too large: at most {} bytes (request line, header lines \
                 and the blank line) and {} header lines.",
                limits.max_head_bytes, limits.max_headers
            ),
        ),
        _ => return None,
    })
}

/// `head` with the shared body, when `head` is exactly one of hyper's bare head-error answers
/// (see the module documentation).
fn rewrite(head: &[u8], limits: &HttpLimits) -> Option<Vec<u8>> {
    if !(head.starts_with(b"HTTP/1.1 ") || head.starts_with(b"HTTP/1.0 ")) || head.len() < 16 {
        return None;
    }
    let end = head.windows(4).position(|w| w == b"\r\n\r\n")?;
    if end + 4 != head.len() {
        return None;
    }
    let body = body_for(&head[9..12], limits)?;
    let text = std::str::from_utf8(&head[..end]).ok()?;
    let mut lines = text.split("\r\n");
    let status_line = lines.next()?;
    let mut kept = Vec::new();
    let mut empty = false;
    for line in lines {
        if line.eq_ignore_ascii_case("content-length: 0") {
            empty = true;
        } else {
            kept.push(line);
        }
    }
    if !empty {
        return None;
    }
    let json = serde_json::to_vec(&body).ok()?;
    let mut out = Vec::with_capacity(head.len() + json.len() + 64);
    out.extend_from_slice(status_line.as_bytes());
    out.extend_from_slice(b"\r\n");
    for line in kept {
        out.extend_from_slice(line.as_bytes());
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"content-type: application/json\r\n");
    out.extend_from_slice(format!("content-length: {}\r\n\r\n", json.len()).as_bytes());
    out.extend_from_slice(&json);
    Some(out)
}

impl<S: AsyncWrite + Unpin> HeadErrorBody<S> {
    /// Writes what is pending; `Ready(Ok(n))` with hyper's length once all of it is out.
    fn drain(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        while self.sent < self.pending.len() {
            let n = ready!(Pin::new(&mut self.inner).poll_write(cx, &self.pending[self.sent..]))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            self.sent += n;
        }
        self.pending = Vec::new();
        self.sent = 0;
        Poll::Ready(Ok(self.report))
    }

    fn start(&mut self, cx: &mut Context<'_>, buf: &[u8]) -> Option<Poll<io::Result<usize>>> {
        let rewritten = rewrite(buf, &self.limits)?;
        self.pending = rewritten;
        self.sent = 0;
        self.report = buf.len();
        Some(self.drain(cx))
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for HeadErrorBody<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for HeadErrorBody<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        if !this.pending.is_empty() {
            // hyper retries the write that was rewritten: finish it.
            return this.drain(cx);
        }
        if let Some(poll) = this.start(cx, buf) {
            return poll;
        }
        Pin::new(&mut this.inner).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        if !this.pending.is_empty() {
            return this.drain(cx);
        }
        let mut filled = bufs.iter().filter(|b| !b.is_empty());
        if let (Some(only), None) = (filled.next(), filled.next()) {
            if let Some(poll) = this.start(cx, only) {
                return poll;
            }
        }
        Pin::new(&mut this.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if !this.pending.is_empty() {
            ready!(this.drain(cx))?;
        }
        Pin::new(&mut this.inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if !this.pending.is_empty() {
            ready!(this.drain(cx))?;
        }
        Pin::new(&mut this.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_hypers_bare_head_errors_are_rewritten() {
        let limits = HttpLimits::default();
        let bare = b"HTTP/1.1 431 Request Header Fields Too Large\r\nconnection: close\r\ncontent-length: 0\r\ndate: x\r\n\r\n";
        let out = String::from_utf8(rewrite(bare, &limits).expect("rewritten")).unwrap();
        let (head, body) = out.split_once("\r\n\r\n").unwrap();
        assert!(head.starts_with("HTTP/1.1 431 "), "{head}");
        assert!(
            head.contains("connection: close") && head.contains("date: x"),
            "{head}"
        );
        assert!(
            head.contains(&format!("content-length: {}", body.len())),
            "{head}"
        );
        let parsed: ErrorBody = serde_json::from_str(body).unwrap();
        assert_eq!(parsed.error, "request_head_too_large");
        assert!(parsed.message.contains("65536 bytes"), "{}", parsed.message);
        for other in [
            &b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n"[..],
            b"HTTP/1.1 400 Bad Request\r\ncontent-length: 5\r\n\r\n",
            b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\nextra",
            b"{\"error\":\"x\"}",
        ] {
            assert!(
                rewrite(other, &limits).is_none(),
                "{:?}",
                String::from_utf8_lossy(other)
            );
        }
    }
}
