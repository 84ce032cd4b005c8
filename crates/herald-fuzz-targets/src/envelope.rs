//! `envelope`: envelope parsing and `herald_crypto::open`/`open_at` against the fixed test
//! account of [`Fixture`].
//!
//! Input: a mode byte, then
//! - mode 0: envelope JSON, optionally followed by `NUL` and the relay time to open it at;
//! - mode 1: a fixture index byte and a tamper program (5-byte operations: flip, truncate,
//!   insert, empty a part; drop, copy or swap a sealed key; change `v` or `suite`; splice in
//!   another fixture's header, sealed key, body or signature) applied to an honest envelope;
//! - mode 2: as mode 1, then signed again by the fixture's sender over the changed
//!   envelope: a certified but malicious sender.
//!
//! Properties:
//! - parsing, the unverified accessors and opening never panic; a parsed envelope
//!   round-trips through its JSON;
//! - nothing opens unless it is exactly an honest envelope, and then to its plaintext;
//!   a revoked sender's envelope opens only at a relay time not after the revocation;
//! - an untouched fixture opens; any change to it (mode 1) makes opening fail;
//! - re-signed by its sender (mode 2), an envelope opens for a recipient only when the
//!   header, the body and that recipient's sealed key are all unchanged.

use chrono::DateTime;
use herald_crypto::{open, open_at, Envelope, Error, SealedKey};
use herald_protocol::envelope::{b64_decode, b64_encode};

use crate::fixture::{resign, EnvelopeFixture, Fixture, REVOKED_AT, STORED_BEFORE};
use crate::json::assert_round_trip;
use crate::split_nul;

/// The `envelope` target.
pub fn envelope(data: &[u8]) {
    let Some((mode, rest)) = data.split_first() else {
        return;
    };
    match mode % 3 {
        0 => raw(rest),
        m => tampered(rest, m == 2),
    }
}

fn raw(data: &[u8]) {
    let (json, stored_at) = split_nul(data);
    let Ok(envelope) = serde_json::from_slice::<Envelope>(json) else {
        return;
    };
    let _ = envelope.header_unverified();
    let _ = envelope.encoded_len();
    assert_round_trip("a parsed envelope", &envelope);
    let fixture = Fixture::get();
    let secrets = fixture.secret_refs();
    let honest = fixture.envelopes.iter().find(|f| f.envelope == envelope);
    if let Ok((header, plaintext)) = open(&envelope, &fixture.directory, &secrets) {
        let f = honest.expect("only an honest envelope opens");
        assert_eq!(
            plaintext.as_slice(),
            f.plaintext,
            "it opens to its plaintext"
        );
        assert_eq!(Some(header), f.envelope.header_unverified());
        assert!(!is_revoked_sender(f), "open refuses a revoked sender");
    }
    let stored_at = stored_at
        .map(|s| String::from_utf8_lossy(s).into_owned())
        .unwrap_or_else(|| STORED_BEFORE.to_owned());
    if let Ok((_, plaintext)) = open_at(&envelope, &fixture.directory, &secrets, &stored_at) {
        let f = honest.expect("only an honest envelope opens at a relay time");
        assert_eq!(plaintext.as_slice(), f.plaintext);
        if is_revoked_sender(f) {
            let at = DateTime::parse_from_rfc3339(&stored_at).expect("a readable relay time");
            let revoked = DateTime::parse_from_rfc3339(REVOKED_AT).expect("fixed time");
            assert!(
                at <= revoked,
                "a revoked sender opens only before its revocation"
            );
        }
    }
}

fn is_revoked_sender(f: &EnvelopeFixture) -> bool {
    let fixture = Fixture::get();
    f.envelope
        .header_unverified()
        .is_some_and(|h| h.sender == herald_crypto::Principal::Device(fixture.revoked_id.clone()))
}

fn tampered(data: &[u8], resigned: bool) {
    let fixture = Fixture::get();
    let Some((index, program)) = data.split_first() else {
        return;
    };
    let original = &fixture.envelopes[*index as usize % fixture.envelopes.len()];
    let mut envelope = original.envelope.clone();
    for op in program.chunks_exact(5) {
        apply(&mut envelope, op, &fixture.envelopes);
    }
    let seed = original.signer_seed.filter(|_| resigned);
    if let Some(seed) = seed {
        if let Some(signature) = resign(&envelope, &seed) {
            envelope.signature = signature;
        }
    }
    let secrets = fixture.secret_refs();
    let opened_now = open(&envelope, &fixture.directory, &secrets);
    let opened = open_at(&envelope, &fixture.directory, &secrets, STORED_BEFORE);
    if is_revoked_sender(original) && envelope.header == original.envelope.header {
        assert!(opened_now.is_err(), "open refuses a revoked sender");
    }
    if envelope == original.envelope {
        let (_, plaintext) = opened.expect("an untouched honest envelope opens");
        assert_eq!(plaintext.as_slice(), original.plaintext);
        return;
    }
    if seed.is_none() {
        if let Ok((_, plaintext)) = opened {
            // A splice can rebuild another honest envelope exactly; nothing else opens.
            let other = fixture.envelopes.iter().find(|f| f.envelope == envelope);
            let other = other.expect("a changed envelope never opens");
            assert_eq!(plaintext.as_slice(), other.plaintext);
        }
        return;
    }
    for secret in &fixture.secrets {
        let Ok((_, plaintext)) = open_at(&envelope, &fixture.directory, &[secret], STORED_BEFORE)
        else {
            continue;
        };
        let sealed = |e: &Envelope| -> Option<SealedKey> {
            e.recipients
                .iter()
                .find(|r| r.key_id == secret.key_id())
                .cloned()
        };
        assert_eq!(
            envelope.header, original.envelope.header,
            "header unchanged"
        );
        assert_eq!(
            envelope.ciphertext, original.envelope.ciphertext,
            "body unchanged"
        );
        assert_eq!(
            sealed(&envelope),
            sealed(&original.envelope),
            "sealed key unchanged"
        );
        assert_eq!(plaintext.as_slice(), original.plaintext);
    }
    if let Err(e) = opened {
        // Re-signed, the sender is still certified: only shape and decryption can fail.
        assert!(
            !matches!(e, Error::RevokedSender),
            "a re-signed envelope stored before the revocation is not refused as revoked"
        );
    }
}

/// The parts a tamper operation can edit, as bytes.
#[derive(Clone, Copy)]
enum Part {
    Header,
    Ciphertext,
    Signature,
    KeyId(usize),
    Enc(usize),
    Ct(usize),
}

fn part(envelope: &Envelope, selector: u8) -> Part {
    let n = envelope.recipients.len();
    match selector as usize % (3 + 3 * n) {
        0 => Part::Header,
        1 => Part::Ciphertext,
        2 => Part::Signature,
        k => {
            let i = (k - 3) / 3;
            match (k - 3) % 3 {
                0 => Part::KeyId(i),
                1 => Part::Enc(i),
                _ => Part::Ct(i),
            }
        }
    }
}

fn read(envelope: &Envelope, part: Part) -> Vec<u8> {
    let b64 = |s: &str| b64_decode(s).unwrap_or_else(|| s.as_bytes().to_vec());
    match part {
        Part::Header => b64(&envelope.header),
        Part::Ciphertext => b64(&envelope.ciphertext),
        Part::Signature => b64(&envelope.signature),
        Part::KeyId(i) => envelope.recipients[i].key_id.as_bytes().to_vec(),
        Part::Enc(i) => b64(&envelope.recipients[i].enc),
        Part::Ct(i) => b64(&envelope.recipients[i].ct),
    }
}

fn write(envelope: &mut Envelope, part: Part, bytes: &[u8]) {
    let text = b64_encode(bytes);
    match part {
        Part::Header => envelope.header = text,
        Part::Ciphertext => envelope.ciphertext = text,
        Part::Signature => envelope.signature = text,
        Part::KeyId(i) => envelope.recipients[i].key_id = String::from_utf8_lossy(bytes).into(),
        Part::Enc(i) => envelope.recipients[i].enc = text,
        Part::Ct(i) => envelope.recipients[i].ct = text,
    }
}

/// Applies one operation `[op, selector, position (u16, big-endian), value]`.
fn apply(envelope: &mut Envelope, op: &[u8], others: &[EnvelopeFixture]) {
    let [code, sel, hi, lo, val] = [op[0], op[1], op[2], op[3], op[4]];
    let pos = usize::from(u16::from_be_bytes([hi, lo]));
    let other = &others[usize::from(val) % others.len()].envelope;
    let n = envelope.recipients.len();
    match code % 13 {
        0..=3 => {
            let p = part(envelope, sel);
            let mut bytes = read(envelope, p);
            match code % 13 {
                0 if !bytes.is_empty() => {
                    let i = pos % bytes.len();
                    bytes[i] ^= val.max(1);
                }
                1 => bytes.truncate(pos % (bytes.len() + 1)),
                2 => bytes.insert(pos % (bytes.len() + 1), val),
                3 => bytes.clear(),
                _ => {}
            }
            write(envelope, p, &bytes);
        }
        4 if n > 0 => {
            envelope.recipients.remove(usize::from(sel) % n);
        }
        5 if n > 0 => {
            let copy = envelope.recipients[usize::from(sel) % n].clone();
            envelope.recipients.push(copy);
        }
        6 if n > 0 => envelope.recipients.swap(usize::from(sel) % n, pos % n),
        7 => envelope.v = u32::from(val),
        8 => match val % 2 {
            0 => envelope.suite.push(char::from(sel)),
            _ => {
                let keep = pos % (envelope.suite.len() + 1);
                envelope.suite = envelope.suite.chars().take(keep).collect();
            }
        },
        9 => envelope.header = other.header.clone(),
        10 if n > 0 && !other.recipients.is_empty() => {
            let from = other.recipients[pos % other.recipients.len()].clone();
            envelope.recipients[usize::from(sel) % n] = from;
        }
        11 => envelope.ciphertext = other.ciphertext.clone(),
        12 => envelope.signature = other.signature.clone(),
        _ => {}
    }
}
