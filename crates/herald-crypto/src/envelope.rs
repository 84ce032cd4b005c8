//! Sealing and opening envelopes (messages and answers).
//!
//! Construction (docs/protocol.md, "Cryptography", has the byte-level description):
//! a fresh 32-byte content key; the header is the UTF-8 JSON of an `EnvelopeHeader` and its
//! hash `H = SHA-256(header bytes)` is the AAD of everything sealed; the content key is
//! HPKE-sealed to each recipient (info `herald.v1/envelope/content-key`); the body is
//! ChaCha20-Poly1305 under `HKDF-SHA256(content key, "herald.v1/envelope/body")` with a zero
//! nonce (the key is used once); the sender signs a transcript of header, recipients and body.
//! Receivers check the signature chain to the pinned AIK before decrypting anything
//! (protocol-decisions.md, "Envelopes").

use std::collections::BTreeSet;

use herald_protocol::envelope::{
    b64_decode, b64_encode, Envelope, EnvelopeHeader, EnvelopeKind, SealedKey, ENVELOPE_VERSION,
    SUITE_V1,
};
use herald_protocol::ids::{AccountId, MessageId};
use zeroize::Zeroizing;

use crate::directory::Directory;
use crate::error::{Error, Result};
use crate::hpke_base::{self, ENC_LEN, TAG_LEN};
use crate::keys::{Recipient, RecipientSecret, Signer};
use crate::labels;
use crate::primitives::{chacha_open, chacha_seal, ed25519_verify, hkdf32, random_bytes, sha256};

/// The body nonce: all zero, safe because every body key encrypts exactly one message.
const BODY_NONCE: [u8; 12] = [0; 12];

/// What [`seal`] binds into the header besides the sender.
#[derive(Debug, Clone, Copy)]
pub struct SealParams<'a> {
    /// Message or answer.
    pub kind: EnvelopeKind,
    /// The account the envelope belongs to.
    pub account_id: &'a AccountId,
    /// The message id (kind message) or the id of the message answered (kind answer).
    pub message_id: &'a MessageId,
    /// The sender's clock, RFC 3339 (informational).
    pub created_at: &'a str,
    /// Who can open it, in order: for a message the AEK and the addressed connections; for an
    /// answer the asking connection and the AEK; for a secret answer the connection only.
    pub recipients: &'a [Recipient],
}

fn put(out: &mut Vec<u8>, part: &[u8]) {
    let len = u32::try_from(part.len()).expect("envelope parts are far below 4 GiB");
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(part);
}

/// The signed transcript: `"herald.v1/envelope/signature" || lp(header) ||
/// for each recipient: lp(key id) || lp(enc) || lp(ct) || lp(ciphertext)`, where `lp(x)` is
/// the length of `x` as a big-endian u32 followed by `x`.
fn transcript(header: &[u8], recipients: &[(&str, &[u8], &[u8])], ciphertext: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(
        labels::ENVELOPE_SIGNATURE.len() + header.len() + ciphertext.len() + 128 * recipients.len(),
    );
    out.extend_from_slice(labels::ENVELOPE_SIGNATURE);
    put(&mut out, header);
    for (key_id, enc, ct) in recipients {
        put(&mut out, key_id.as_bytes());
        put(&mut out, enc);
        put(&mut out, ct);
    }
    put(&mut out, ciphertext);
    out
}

fn body_key(content_key: &[u8]) -> Zeroizing<[u8; 32]> {
    hkdf32(content_key, labels::ENVELOPE_BODY)
}

/// Seals `plaintext` (the content JSON) to `params.recipients` and signs it as `signer`.
///
/// Errors: [`Error::InvalidInput`] when the recipient list is empty, holds a key id twice, or
/// a key id does not match its public key (or the key is unusable).
pub fn seal(params: &SealParams, plaintext: &[u8], signer: &Signer) -> Result<Envelope> {
    if params.recipients.is_empty() {
        return Err(Error::InvalidInput(
            "an envelope needs at least one recipient",
        ));
    }
    let mut seen = BTreeSet::new();
    for recipient in params.recipients {
        recipient.check()?;
        if !seen.insert(recipient.key_id.as_str()) {
            return Err(Error::InvalidInput("duplicate recipient"));
        }
    }
    let header = EnvelopeHeader {
        v: ENVELOPE_VERSION,
        suite: SUITE_V1.to_owned(),
        kind: params.kind,
        account_id: params.account_id.clone(),
        message_id: params.message_id.clone(),
        sender: signer.principal().clone(),
        signing_key_id: signer.key_id().to_owned(),
        created_at: params.created_at.to_owned(),
        recipients: params.recipients.iter().map(|r| r.key_id.clone()).collect(),
    };
    // Serializing a derived struct of strings, integers and enums cannot fail.
    let header_bytes = serde_json::to_vec(&header).expect("envelope headers serialize");
    let header_hash = sha256(&[&header_bytes]);

    let content_key = Zeroizing::new(random_bytes::<32>());
    let mut sealed = Vec::with_capacity(params.recipients.len());
    for recipient in params.recipients {
        let (enc, ct) = hpke_base::seal(
            &recipient.public_key,
            labels::ENVELOPE_CONTENT_KEY,
            &header_hash,
            &content_key[..],
        )?;
        sealed.push((recipient.key_id.as_str(), enc, ct));
    }
    let ciphertext = chacha_seal(
        &body_key(&content_key[..]),
        BODY_NONCE,
        &header_hash,
        plaintext,
    );

    let parts: Vec<(&str, &[u8], &[u8])> = sealed
        .iter()
        .map(|(id, enc, ct)| (*id, &enc[..], &ct[..]))
        .collect();
    let signature = signer.sign(&transcript(&header_bytes, &parts, &ciphertext));

    Ok(Envelope {
        v: ENVELOPE_VERSION,
        suite: SUITE_V1.to_owned(),
        header: b64_encode(&header_bytes),
        recipients: sealed
            .iter()
            .map(|(key_id, enc, ct)| SealedKey {
                key_id: (*key_id).to_owned(),
                enc: b64_encode(enc),
                ct: b64_encode(ct),
            })
            .collect(),
        ciphertext: b64_encode(&ciphertext),
        signature: b64_encode(&signature),
    })
}

/// Verifies and opens an envelope.
///
/// In order: the version and suite are the ones this build implements
/// ([`Error::Unsupported`]); the header decodes, repeats them, names the directory's account
/// and lists exactly the envelope's recipient key ids in order, without duplicates
/// ([`Error::Verification`]); the directory certifies `header.sender` with
/// `header.signing_key_id` ([`Error::UnknownSender`]); the signature over the transcript
/// verifies ([`Error::Verification`]); one of `secrets` is a recipient
/// ([`Error::NotRecipient`]); the content key and the body decrypt ([`Error::Decryption`]).
/// Returns the verified header and the plaintext. Never panics on input.
///
/// The sender must be certified now: a revoked sender fails with [`Error::UnknownSender`].
/// For a record the relay stored (a message, an answer), use [`open_at`] with its relay time.
pub fn open(
    envelope: &Envelope,
    directory: &Directory,
    secrets: &[&RecipientSecret],
) -> Result<(EnvelopeHeader, Zeroizing<Vec<u8>>)> {
    open_checked(envelope, directory, secrets, |header| {
        directory
            .signing_key(&header.sender, &header.signing_key_id)
            .ok_or(Error::UnknownSender)
    })
}

/// [`open`] for an envelope of a record the relay stamped at `stored_at` (RFC 3339: the
/// record's `createdAt` for a message, `answeredAt` for an answer and its secret envelope;
/// never the header's `createdAt`, which the sender wrote).
///
/// A sender revoked since is still accepted when `stored_at` is not after its revocation
/// time ([`Directory::signing_key_at`]); one stored later fails with
/// [`Error::RevokedSender`]. Every other check and error is [`open`]'s.
pub fn open_at(
    envelope: &Envelope,
    directory: &Directory,
    secrets: &[&RecipientSecret],
    stored_at: &str,
) -> Result<(EnvelopeHeader, Zeroizing<Vec<u8>>)> {
    open_checked(envelope, directory, secrets, |header| {
        directory.signing_key_at(&header.sender, &header.signing_key_id, stored_at)
    })
}

/// The checks of [`open`], with the sender's key found by `sender_key`.
fn open_checked(
    envelope: &Envelope,
    directory: &Directory,
    secrets: &[&RecipientSecret],
    sender_key: impl FnOnce(&EnvelopeHeader) -> Result<[u8; 32]>,
) -> Result<(EnvelopeHeader, Zeroizing<Vec<u8>>)> {
    if envelope.v != ENVELOPE_VERSION {
        return Err(Error::Unsupported("envelope version"));
    }
    if envelope.suite != SUITE_V1 {
        return Err(Error::Unsupported("envelope suite"));
    }
    let header_bytes =
        b64_decode(&envelope.header).ok_or(Error::Verification("header encoding"))?;
    let header: EnvelopeHeader =
        serde_json::from_slice(&header_bytes).map_err(|_| Error::Verification("header"))?;
    if header.v != envelope.v || header.suite != envelope.suite {
        return Err(Error::Verification("header version or suite"));
    }
    if &header.account_id != directory.account_id() {
        return Err(Error::Verification("envelope of another account"));
    }
    if header.recipients.len() != envelope.recipients.len()
        || header
            .recipients
            .iter()
            .zip(&envelope.recipients)
            .any(|(named, sealed)| *named != sealed.key_id)
    {
        return Err(Error::Verification("recipient list"));
    }
    let mut seen = BTreeSet::new();
    if !header.recipients.iter().all(|id| seen.insert(id.as_str())) {
        return Err(Error::Verification("duplicate recipient"));
    }

    let mut decoded = Vec::with_capacity(envelope.recipients.len());
    for sealed in &envelope.recipients {
        let enc = b64_decode(&sealed.enc).ok_or(Error::Verification("sealed key encoding"))?;
        let ct = b64_decode(&sealed.ct).ok_or(Error::Verification("sealed key encoding"))?;
        decoded.push((sealed.key_id.as_str(), enc, ct));
    }
    let ciphertext =
        b64_decode(&envelope.ciphertext).ok_or(Error::Verification("ciphertext encoding"))?;
    let signature =
        b64_decode(&envelope.signature).ok_or(Error::Verification("signature encoding"))?;

    let sender_key = sender_key(&header)?;
    let parts: Vec<(&str, &[u8], &[u8])> = decoded
        .iter()
        .map(|(id, enc, ct)| (*id, &enc[..], &ct[..]))
        .collect();
    if signature.len() != 64
        || !ed25519_verify(
            &sender_key,
            &transcript(&header_bytes, &parts, &ciphertext),
            &signature,
        )
    {
        return Err(Error::Verification("envelope signature"));
    }

    let header_hash = sha256(&[&header_bytes]);
    let (secret, (_, enc, ct)) = decoded
        .iter()
        .find_map(|part| {
            secrets
                .iter()
                .find(|s| s.key_id() == part.0)
                .map(|s| (*s, part))
        })
        .ok_or(Error::NotRecipient)?;
    if enc.len() != ENC_LEN || ct.len() != 32 + TAG_LEN {
        return Err(Error::Decryption("content key"));
    }
    let content_key = hpke_base::open(
        secret.secret_bytes(),
        enc,
        labels::ENVELOPE_CONTENT_KEY,
        &header_hash,
        ct,
        "content key",
    )?;
    if content_key.len() != 32 {
        return Err(Error::Decryption("content key"));
    }
    let plaintext = chacha_open(
        &body_key(&content_key),
        BODY_NONCE,
        &header_hash,
        &ciphertext,
    )
    .ok_or(Error::Decryption("body"))?;
    Ok((header, plaintext))
}

#[cfg(test)]
mod tests {
    //! The decryption failures only a certified (but malicious or buggy) sender can cause: the
    //! signature verifies, so the error must come from decryption, as a distinct variant.

    use herald_protocol::wire::KeysResponse;

    use super::*;
    use crate::{new_device_id, new_message_id, AccountKeys, DeviceKeys};

    const NOW: &str = "2026-01-01T00:00:00Z";

    /// Re-signs `envelope` after `change`, as its certified sender could.
    fn resigned(
        envelope: &Envelope,
        signer: &Signer,
        change: impl FnOnce(&mut Envelope),
    ) -> Envelope {
        let mut e = envelope.clone();
        change(&mut e);
        let header = b64_decode(&e.header).expect("header b64");
        let parts: Vec<(String, Vec<u8>, Vec<u8>)> = e
            .recipients
            .iter()
            .map(|r| {
                let enc = b64_decode(&r.enc).expect("enc b64");
                let ct = b64_decode(&r.ct).expect("ct b64");
                (r.key_id.clone(), enc, ct)
            })
            .collect();
        let parts: Vec<(&str, &[u8], &[u8])> = parts
            .iter()
            .map(|(k, a, b)| (k.as_str(), &a[..], &b[..]))
            .collect();
        let ct = b64_decode(&e.ciphertext).expect("ciphertext b64");
        e.signature = b64_encode(&signer.sign(&transcript(&header, &parts, &ct)));
        e
    }

    #[test]
    fn signed_garbage_fails_as_decryption() {
        let account = AccountKeys::generate();
        let device_id = new_device_id();
        let device = DeviceKeys::generate();
        let keys = KeysResponse {
            account_id: account.account_id(),
            statement: account.statement(NOW),
            encryption_keys: vec![account.encryption_key_certificate(1, NOW).expect("epoch 1")],
            devices: vec![account.certify_device(&device_id, "d", "linux", &device.public(), NOW)],
            connections: vec![],
            revoked_devices: vec![],
            revoked_connections: vec![],
        };
        let directory = Directory::verify(&keys, &account.fingerprint()).expect("verifies");
        let signer = device.signer(&device_id);
        let recipients = [account.current_recipient()];
        let params = SealParams {
            kind: EnvelopeKind::Message,
            account_id: &account.account_id(),
            message_id: &new_message_id(),
            created_at: NOW,
            recipients: &recipients,
        };
        let envelope = seal(&params, b"hello", &signer).expect("seal");
        let aek = account.encryption_secrets();
        let aek = [&aek[0]];
        assert!(
            open(&envelope, &directory, &aek).is_ok(),
            "the honest envelope opens"
        );

        let flip = |s: &str| {
            let mut b = b64_decode(s).expect("b64");
            b[0] ^= 1;
            b64_encode(&b)
        };
        let cases = [
            (
                "sealed key ct",
                resigned(&envelope, &signer, |e| {
                    e.recipients[0].ct = flip(&e.recipients[0].ct)
                }),
            ),
            (
                "sealed key enc",
                resigned(&envelope, &signer, |e| {
                    e.recipients[0].enc = flip(&e.recipients[0].enc)
                }),
            ),
            (
                "short enc",
                resigned(&envelope, &signer, |e| {
                    e.recipients[0].enc = b64_encode(&[1; 31])
                }),
            ),
            (
                "body",
                resigned(&envelope, &signer, |e| e.ciphertext = flip(&e.ciphertext)),
            ),
            (
                "empty body",
                resigned(&envelope, &signer, |e| e.ciphertext = String::new()),
            ),
        ];
        for (name, bad) in cases {
            let result = open(&bad, &directory, &aek);
            assert!(
                matches!(result, Err(Error::Decryption(_))),
                "signed but tampered {name} must fail as decryption, got {result:?}"
            );
        }
    }
}
