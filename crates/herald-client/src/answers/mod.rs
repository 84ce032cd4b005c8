//! Answering requests from this device, the parts every front end shares: the gate that lets
//! exactly one answer per request through whichever surface answers first ([`gate`]), and the
//! files a person picked for file fields, known to a front end only by an opaque id
//! ([`picks`]), and the outbox that keeps an answer the relay could not take yet and posts it
//! on reconnect (`outbox`). Sealing and posting the answer is `Core::answer`'s (with secrets
//! and files). The gate calls `Core`; the outbox only the session, cache and transport.

pub mod gate;
pub(crate) mod outbox;
pub mod picks;
