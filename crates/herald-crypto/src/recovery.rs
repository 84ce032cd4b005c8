//! The recovery key, and the account bundle sealed to it.
//!
//! A recovery key is 128 random bits shown as 28 Crockford base32 characters in 7 groups of 4
//! (`XXXX-XXXX-…`): 26 characters carry the 128 bits (the last 2 bits are zero padding) and 2
//! check characters follow. With the 26 data symbols `v_i` read as elements of GF(32) (modulus
//! x^5 + x^2 + 1, α = x), the check symbols are `c0 = Σ v_i` and `c1 = Σ v_i·α^(i+1)`. Since α
//! has order 31, any one or two changed characters (so any swap of two characters) are always
//! detected. Parsing is case-insensitive, ignores spaces and dashes, and reads I and L as 1 and
//! O as 0.
//!
//! The recovery key pair is HPKE DeriveKeyPair(HKDF-SHA256(key, "herald.v1/recovery/encryption"))
//! and the account bundle is HPKE-sealed to its public key (info `herald.v1/recovery/bundle`,
//! aad = the recipient key id), so any unlocked device can re-seal the bundle after a rotation
//! without the user typing the key (protocol-decisions.md, "Unlocking a new device").

use std::fmt;

use zeroize::Zeroizing;

use crate::account::AccountKeys;
use crate::error::{Error, Result};
use crate::hpke_base::{self, ENC_LEN, TAG_LEN};
use crate::keys::{Recipient, RecipientSecret};
use crate::labels;
use crate::primitives::{hkdf32, random_bytes};

const ALPHABET: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const DATA_SYMBOLS: usize = 26;
const SYMBOLS: usize = DATA_SYMBOLS + 2;
const GROUP: usize = 4;
/// Version byte of a bundle sealed to a recovery key.
const SEALED_BUNDLE_VERSION: u8 = 1;

/// Multiplication in GF(32) modulo x^5 + x^2 + 1, without secret-dependent branches.
fn gf32_mul(a: u8, b: u8) -> u8 {
    let (mut a, mut product) = (a, 0u8);
    for bit in 0..5 {
        product ^= a & 0u8.wrapping_sub((b >> bit) & 1);
        let carry = 0u8.wrapping_sub((a >> 4) & 1);
        a = ((a << 1) & 0x1f) ^ (0x05 & carry);
    }
    product
}

fn check_symbols(data: &[u8]) -> [u8; 2] {
    let (mut c0, mut c1, mut power) = (0u8, 0u8, 1u8);
    for &v in data {
        power = gf32_mul(power, 2);
        c0 ^= v;
        c1 ^= gf32_mul(v, power);
    }
    [c0, c1]
}

fn symbol_value(c: char) -> Option<u8> {
    let c = match c.to_ascii_uppercase() {
        'I' | 'L' => '1',
        'O' => '0',
        c => c,
    };
    ALPHABET
        .iter()
        .position(|&a| char::from(a) == c)
        .map(|i| i as u8)
}

/// The 128-bit recovery key. Zeroized on drop; `Debug` redacts.
#[derive(Clone)]
pub struct RecoveryKey(Zeroizing<[u8; 16]>);

impl RecoveryKey {
    /// A fresh random recovery key.
    pub fn generate() -> RecoveryKey {
        RecoveryKey(Zeroizing::new(random_bytes()))
    }

    /// The key as the user writes it down: 28 characters in 7 groups of 4 joined by `-`.
    pub fn display(&self) -> Zeroizing<String> {
        let mut symbols = Zeroizing::new(Vec::with_capacity(SYMBOLS));
        let (mut acc, mut bits) = (0u16, 0u32);
        for &byte in self.0.iter() {
            acc = (acc << 8) | u16::from(byte);
            bits += 8;
            while bits >= 5 {
                bits -= 5;
                symbols.push(((acc >> bits) & 0x1f) as u8);
            }
            acc &= (1 << bits) - 1;
        }
        symbols.push(((acc << (5 - bits)) & 0x1f) as u8);
        let check = check_symbols(&symbols);
        symbols.extend_from_slice(&check);
        let mut out = Zeroizing::new(String::with_capacity(SYMBOLS + SYMBOLS / GROUP));
        for (i, &s) in symbols.iter().enumerate() {
            if i > 0 && i % GROUP == 0 {
                out.push('-');
            }
            out.push(char::from(ALPHABET[usize::from(s)]));
        }
        out
    }

    /// Parses a typed recovery key. Errors: [`Error::Malformed`] for a character outside
    /// Crockford base32 or a length other than 28 characters; [`Error::Checksum`] when the
    /// check characters do not match (a typo).
    pub fn parse(s: &str) -> Result<RecoveryKey> {
        let mut symbols = Zeroizing::new(Vec::with_capacity(SYMBOLS));
        for c in s.chars() {
            if c.is_whitespace() || c == '-' {
                continue;
            }
            let v = symbol_value(c).ok_or(Error::Malformed(
                "recovery key: only letters and digits (Crockford base32)",
            ))?;
            if symbols.len() == SYMBOLS {
                return Err(Error::Malformed("recovery key: expected 28 characters"));
            }
            symbols.push(v);
        }
        if symbols.len() != SYMBOLS {
            return Err(Error::Malformed("recovery key: expected 28 characters"));
        }
        let (data, check) = symbols.split_at(DATA_SYMBOLS);
        if check_symbols(data) != [check[0], check[1]] {
            return Err(Error::Checksum);
        }
        let mut bytes = Zeroizing::new([0u8; 16]);
        let (mut acc, mut bits, mut n) = (0u16, 0u32, 0usize);
        for &v in data {
            acc = (acc << 5) | u16::from(v);
            bits += 5;
            if bits >= 8 {
                bits -= 8;
                bytes[n] = (acc >> bits) as u8;
                n += 1;
                acc &= (1 << bits) - 1;
            }
        }
        if n != 16 || acc != 0 {
            return Err(Error::Malformed("recovery key: padding bits"));
        }
        Ok(RecoveryKey(bytes))
    }

    /// The recovery key pair's public half.
    pub fn recipient(&self) -> Recipient {
        self.recipient_secret().recipient()
    }

    /// The recovery key pair.
    pub fn recipient_secret(&self) -> RecipientSecret {
        let ikm = hkdf32(&self.0[..], labels::RECOVERY_ENCRYPTION);
        RecipientSecret::derive(&ikm[..])
    }
}

impl fmt::Debug for RecoveryKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("RecoveryKey(<redacted>)")
    }
}

/// Seals the account key bundle to a recovery public key:
/// `0x01 || enc (32) || HPKE ciphertext of AccountKeys::to_bytes()`.
/// Errors: [`Error::InvalidInput`] when `recovery`'s key id does not match its key.
pub fn seal_bundle_to_recovery(bundle: &AccountKeys, recovery: &Recipient) -> Result<Vec<u8>> {
    recovery.check()?;
    let plaintext = bundle.to_bytes();
    let (enc, ct) = hpke_base::seal(
        &recovery.public_key,
        labels::RECOVERY_BUNDLE,
        recovery.key_id.as_bytes(),
        &plaintext,
    )?;
    let mut out = Vec::with_capacity(1 + ENC_LEN + ct.len());
    out.push(SEALED_BUNDLE_VERSION);
    out.extend_from_slice(&enc);
    out.extend_from_slice(&ct);
    Ok(out)
}

/// Opens [`seal_bundle_to_recovery`] output with the typed recovery key.
/// Errors: [`Error::Malformed`] for a wrong version byte or length, [`Error::Decryption`] for
/// a wrong recovery key or tampered bytes.
pub fn open_bundle_with_recovery(sealed: &[u8], key: &RecoveryKey) -> Result<AccountKeys> {
    if sealed.len() < 1 + ENC_LEN + TAG_LEN || sealed[0] != SEALED_BUNDLE_VERSION {
        return Err(Error::Malformed("sealed account bundle"));
    }
    let secret = key.recipient_secret();
    let plaintext = hpke_base::open(
        secret.secret_bytes(),
        &sealed[1..1 + ENC_LEN],
        labels::RECOVERY_BUNDLE,
        secret.key_id().as_bytes(),
        &sealed[1 + ENC_LEN..],
        "sealed account bundle",
    )?;
    AccountKeys::from_bytes(&plaintext)
}
