//! Answering requests from this device, the parts every front end shares: the gate that lets
//! exactly one answer per request through whichever surface answers first ([`gate`]), and the
//! files a person picked for file fields, known to a front end only by an opaque id
//! ([`picks`]). Sealing and posting the answer is `Core::answer`'s (outbox, secrets, files).
//! These modules call down into `Core` and the view types; nothing in the core calls them.

pub mod gate;
pub mod picks;
