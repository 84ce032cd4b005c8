//! Answering requests from this device, the parts below `Core`: the files a person picked for
//! file fields, known to a front end only by an opaque id ([`picks`]), and the outbox that
//! keeps an answer the relay could not take yet and posts it on reconnect (`outbox`). Sealing
//! and posting the answer is `Core::answer`'s (with secrets and files). The gate that lets one
//! answer per request through, whichever surface answers first, calls `Core` and so sits above
//! it (the `gate` module at the crate root). The outbox calls only the session, cache and transport.

pub(crate) mod outbox;
pub mod picks;
