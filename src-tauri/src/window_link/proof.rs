//! The link's mutual proof (docs/desktop-lifecycle.md, "Window process"): each side shows it
//! knows the token of `window-link.json` without ever sending it. The window sends a fresh
//! nonce; the core answers with HMAC-SHA256(token, "core" label ‖ that nonce) and a nonce of
//! its own; the window checks that before it says anything else (its link, whether the core
//! started it) and answers with HMAC-SHA256(token, "window" label ‖ the core's nonce).
//!
//! So a process that took the port of a crashed core learns nothing and cannot pose as
//! Herald to the next window, and a process that connects to a live core cannot pose as a
//! window. The two labels keep one side's proof from ever serving as the other's. Nonces and
//! proofs travel as lowercase hex (32 bytes each).

use ring::hmac;

const CORE_LABEL: &[u8] = b"herald window-link v1 core\0";
const WINDOW_LABEL: &[u8] = b"herald window-link v1 window\0";

/// 32 fresh random bytes, lowercase hex: a nonce, or the link's token. Errors when the system
/// has no randomness.
pub fn random_hex() -> std::io::Result<String> {
    use ring::rand::SecureRandom;
    let mut bytes = [0u8; 32];
    ring::rand::SystemRandom::new()
        .fill(&mut bytes)
        .map_err(|_| std::io::Error::other("no system randomness"))?;
    Ok(data_encoding::HEXLOWER.encode(&bytes))
}

/// A fresh nonce ([`random_hex`]).
pub fn new_nonce() -> std::io::Result<String> {
    random_hex()
}

/// The key and the signed message of one side's proof over `nonce`.
fn keyed(token: &str, label: &[u8], nonce: &str) -> (hmac::Key, Vec<u8>) {
    let key = hmac::Key::new(hmac::HMAC_SHA256, token.as_bytes());
    let mut message = label.to_vec();
    message.extend_from_slice(nonce.as_bytes());
    (key, message)
}

fn tag(token: &str, label: &[u8], nonce: &str) -> String {
    let (key, message) = keyed(token, label, nonce);
    data_encoding::HEXLOWER.encode(hmac::sign(&key, &message).as_ref())
}

fn check(token: &str, label: &[u8], nonce: &str, proof: &str) -> bool {
    let Ok(proof) = data_encoding::HEXLOWER.decode(proof.as_bytes()) else {
        return false;
    };
    let (key, message) = keyed(token, label, nonce);
    // Constant time (ring).
    hmac::verify(&key, &message, &proof).is_ok()
}

/// The core's answer to the window's `nonce`.
pub fn core_proof(token: &str, window_nonce: &str) -> String {
    tag(token, CORE_LABEL, window_nonce)
}

/// Whether `proof` is the core's answer to `window_nonce` under `token`.
pub fn core_proof_ok(token: &str, window_nonce: &str, proof: &str) -> bool {
    check(token, CORE_LABEL, window_nonce, proof)
}

/// The window's answer to the core's `nonce`.
pub fn window_proof(token: &str, core_nonce: &str) -> String {
    tag(token, WINDOW_LABEL, core_nonce)
}

/// Whether `proof` is the window's answer to `core_nonce` under `token`.
pub fn window_proof_ok(token: &str, core_nonce: &str, proof: &str) -> bool {
    check(token, WINDOW_LABEL, core_nonce, proof)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_proof_needs_the_token_its_nonce_and_its_side() {
        let (token, other) = ("a".repeat(64), "b".repeat(64));
        let nonce = new_nonce().unwrap();
        assert_eq!(nonce.len(), 64);
        assert_ne!(nonce, new_nonce().unwrap(), "nonces are fresh");
        let core = core_proof(&token, &nonce);
        assert!(core_proof_ok(&token, &nonce, &core));
        assert!(!core_proof_ok(&other, &nonce, &core), "another token");
        assert!(
            !core_proof_ok(&token, &new_nonce().unwrap(), &core),
            "another nonce"
        );
        assert!(
            !window_proof_ok(&token, &nonce, &core),
            "a core's proof is no window's"
        );
        let window = window_proof(&token, &nonce);
        assert!(window_proof_ok(&token, &nonce, &window));
        assert!(
            !core_proof_ok(&token, &nonce, &window),
            "nor the other way round"
        );
        assert!(!core_proof_ok(&token, &nonce, "zz"), "not hex");
        assert!(!core_proof_ok(&token, &nonce, ""), "empty");
        assert!(
            !core.contains(&token) && !window.contains(&token),
            "the token is not in them"
        );
    }
}
