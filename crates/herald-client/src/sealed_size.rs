//! The relay's envelope cap, checked before anything is sent: content within every
//! per-part limit of docs/content.md can still seal to more than the relay accepts
//! ([`MAX_ENVELOPE_BYTES`], 1 MiB), for example four blocks of 50,000 emoji (4 bytes each in
//! UTF-8, a third more in base64url). Senders seal, measure with [`check`] and refuse with the
//! limit and the size instead of meeting a bare `payload_too_large`.

use herald_protocol::content::Violation;
use herald_protocol::envelope::Envelope;
use herald_protocol::wire::MAX_ENVELOPE_BYTES;

use crate::{Error, Result};

/// `Ok` when `envelope` is within [`MAX_ENVELOPE_BYTES`] as the relay measures it
/// ([`Envelope::encoded_len`]). Otherwise `validation_failed` with one path-less violation
/// naming `what` ("message", "answer"), both sizes in bytes, and what to do.
pub fn check(envelope: &Envelope, what: &str) -> Result<()> {
    let size = envelope.encoded_len();
    if size <= MAX_ENVELOPE_BYTES {
        return Ok(());
    }
    let advice = if what == "answer" {
        "shorten the field values, and give files as the values of file fields (they travel \
         as encrypted attachments, outside the envelope)"
    } else {
        "shorten the body or blocks, or send the text as a file attachment"
    };
    Err(Error::Validation(vec![Violation {
        path: String::new(),
        message: format!(
            "the sealed {what} would be {size} bytes, over the relay's limit of \
             {MAX_ENVELOPE_BYTES} bytes (1 MiB) for one envelope: content within every \
             per-part limit can still be too big together (non-ASCII text takes up to 4 bytes \
             a character, and sealing adds a third); {advice} (docs/content.md, \"Total size\")"
        ),
    }]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn too_big() -> Envelope {
        Envelope {
            v: 1,
            suite: "x".into(),
            header: String::new(),
            recipients: Vec::new(),
            ciphertext: "A".repeat(MAX_ENVELOPE_BYTES + 1),
            signature: String::new(),
        }
    }

    #[test]
    fn the_advice_fits_what_is_sent() {
        let answer = check(&too_big(), "answer").unwrap_err().to_string();
        assert!(answer.contains("sealed answer would be"), "{answer}");
        assert!(
            answer.contains("field values") && answer.contains("file fields"),
            "{answer}"
        );
        assert!(
            !answer.contains("body or blocks"),
            "an answer has none: {answer}"
        );
        let message = check(&too_big(), "message").unwrap_err().to_string();
        assert!(message.contains("body or blocks"), "{message}");
    }
}
