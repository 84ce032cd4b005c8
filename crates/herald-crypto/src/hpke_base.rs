//! HPKE (RFC 9180) base mode with the one suite of version 1: DHKEM(X25519, HKDF-SHA256),
//! HKDF-SHA256, ChaCha20-Poly1305 (kem 0x0020, kdf 0x0001, aead 0x0003), via the `hpke` crate.
//! Key pairs are 32-byte X25519 secrets (clamped, as SerializePrivateKey outputs them) and
//! 32-byte public keys. The ephemeral key of every seal comes from ring's `SystemRandom`, so the
//! crate has a single source of randomness.

use std::convert::Infallible;

use hpke::{
    aead::ChaCha20Poly1305,
    kdf::HkdfSha256,
    kem::X25519HkdfSha256,
    rand_core::{CryptoRng, TryCryptoRng, TryRng},
    Deserializable, Kem as _, OpModeR, OpModeS, Serializable,
};
use zeroize::Zeroizing;

use crate::error::{Error, Result};
use crate::primitives::{fill_random, random_bytes};

type Kem = X25519HkdfSha256;
type Kdf = HkdfSha256;
type Aead = ChaCha20Poly1305;

/// Size of an encapsulated key (`enc`).
pub(crate) const ENC_LEN: usize = 32;
/// Size of the AEAD tag HPKE appends.
pub(crate) const TAG_LEN: usize = 16;

/// ring's `SystemRandom` as a `rand_core` generator for the `hpke` crate.
struct SystemRng;

impl TryRng for SystemRng {
    type Error = Infallible;

    fn try_next_u32(&mut self) -> std::result::Result<u32, Infallible> {
        Ok(u32::from_le_bytes(random_bytes()))
    }

    fn try_next_u64(&mut self) -> std::result::Result<u64, Infallible> {
        Ok(u64::from_le_bytes(random_bytes()))
    }

    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> std::result::Result<(), Infallible> {
        fill_random(dst);
        Ok(())
    }
}

impl TryCryptoRng for SystemRng {}

/// RFC 9180 DeriveKeyPair(ikm): `(secret, public)`.
pub(crate) fn derive_key_pair(ikm: &[u8]) -> (Zeroizing<[u8; 32]>, [u8; 32]) {
    let (sk, pk) = Kem::derive_keypair(ikm);
    let mut secret = Zeroizing::new([0u8; 32]);
    sk.write_exact(&mut secret[..]);
    let mut public = [0u8; 32];
    pk.write_exact(&mut public);
    (secret, public)
}

/// A fresh key pair: DeriveKeyPair over 32 random bytes.
pub(crate) fn generate_key_pair() -> (Zeroizing<[u8; 32]>, [u8; 32]) {
    let ikm = Zeroizing::new(random_bytes::<32>());
    derive_key_pair(&ikm[..])
}

fn private_key(secret: &[u8; 32]) -> <Kem as hpke::Kem>::PrivateKey {
    <Kem as hpke::Kem>::PrivateKey::from_bytes(secret)
        .expect("every 32-byte string is an X25519 private key")
}

/// The public key of a secret.
pub(crate) fn public_key(secret: &[u8; 32]) -> [u8; 32] {
    let mut public = [0u8; 32];
    Kem::sk_to_pk(&private_key(secret)).write_exact(&mut public);
    public
}

/// SealBase(pkR, info, aad, pt): `(enc, ct)`.
pub(crate) fn seal(
    public: &[u8; 32],
    info: &[u8],
    aad: &[u8],
    plaintext: &[u8],
) -> Result<([u8; ENC_LEN], Vec<u8>)> {
    seal_with_rng(public, info, aad, plaintext, &mut SystemRng)
}

fn seal_with_rng(
    public: &[u8; 32],
    info: &[u8],
    aad: &[u8],
    plaintext: &[u8],
    rng: &mut impl CryptoRng,
) -> Result<([u8; ENC_LEN], Vec<u8>)> {
    let pk = <Kem as hpke::Kem>::PublicKey::from_bytes(public)
        .map_err(|_| Error::InvalidInput("recipient public key"))?;
    let (enc, ct) = hpke::single_shot_seal_with_rng::<Aead, Kdf, Kem>(
        &OpModeS::Base,
        &pk,
        info,
        plaintext,
        aad,
        rng,
    )
    .map_err(|_| Error::InvalidInput("recipient public key is not a usable X25519 key"))?;
    let mut enc_bytes = [0u8; ENC_LEN];
    enc.write_exact(&mut enc_bytes);
    Ok((enc_bytes, ct))
}

/// OpenBase(enc, skR, info, aad, ct). Any failure is [`Error::Decryption`] naming `what`.
pub(crate) fn open(
    secret: &[u8; 32],
    enc: &[u8],
    info: &[u8],
    aad: &[u8],
    ciphertext: &[u8],
    what: &'static str,
) -> Result<Zeroizing<Vec<u8>>> {
    let enc =
        <Kem as hpke::Kem>::EncappedKey::from_bytes(enc).map_err(|_| Error::Decryption(what))?;
    hpke::single_shot_open::<Aead, Kdf, Kem>(
        &OpModeR::Base,
        &private_key(secret),
        &enc,
        info,
        ciphertext,
        aad,
    )
    .map(Zeroizing::new)
    .map_err(|_| Error::Decryption(what))
}

/// SealPSK(pkR, info, aad, pt, psk, psk_id) (RFC 9180 §5.1.2, mode 0x01): `(enc, ct)`. Only a
/// receiver holding both the X25519 secret and the PSK can open it.
pub(crate) fn seal_psk(
    public: &[u8; 32],
    info: &[u8],
    aad: &[u8],
    plaintext: &[u8],
    psk: &[u8],
    psk_id: &[u8],
) -> Result<([u8; ENC_LEN], Vec<u8>)> {
    let pk = <Kem as hpke::Kem>::PublicKey::from_bytes(public)
        .map_err(|_| Error::InvalidInput("recipient public key"))?;
    let bundle =
        hpke::PskBundle::new(psk, psk_id).map_err(|_| Error::InvalidInput("pre-shared key"))?;
    let (enc, ct) = hpke::single_shot_seal_with_rng::<Aead, Kdf, Kem>(
        &OpModeS::Psk(bundle),
        &pk,
        info,
        plaintext,
        aad,
        &mut SystemRng,
    )
    .map_err(|_| Error::InvalidInput("recipient public key is not a usable X25519 key"))?;
    let mut enc_bytes = [0u8; ENC_LEN];
    enc.write_exact(&mut enc_bytes);
    Ok((enc_bytes, ct))
}

/// OpenPSK, the inverse of [`seal_psk`]. Any failure (wrong secret, wrong PSK, tampering) is
/// [`Error::Decryption`] naming `what`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn open_psk(
    secret: &[u8; 32],
    enc: &[u8],
    info: &[u8],
    aad: &[u8],
    ciphertext: &[u8],
    psk: &[u8],
    psk_id: &[u8],
    what: &'static str,
) -> Result<Zeroizing<Vec<u8>>> {
    let enc =
        <Kem as hpke::Kem>::EncappedKey::from_bytes(enc).map_err(|_| Error::Decryption(what))?;
    let bundle = hpke::PskBundle::new(psk, psk_id).map_err(|_| Error::Decryption(what))?;
    hpke::single_shot_open::<Aead, Kdf, Kem>(
        &OpModeR::Psk(bundle),
        &private_key(secret),
        &enc,
        info,
        ciphertext,
        aad,
    )
    .map(Zeroizing::new)
    .map_err(|_| Error::Decryption(what))
}

#[cfg(test)]
mod tests {
    //! RFC 9180 Appendix A.2.1 (DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, ChaCha20Poly1305,
    //! base mode) and A.2.1.1 (encryption with sequence number 0).

    use super::*;

    fn hex(s: &str) -> Vec<u8> {
        data_encoding::HEXLOWER
            .decode(s.as_bytes())
            .expect("test vector is hex")
    }

    fn arr(s: &str) -> [u8; 32] {
        hex(s).try_into().expect("test vector value is 32 bytes")
    }

    const INFO: &str = "4f6465206f6e2061204772656369616e2055726e";
    const IKM_E: &str = "909a9b35d3dc4713a5e72a4da274b55d3d3821a37e5d099e74a647db583a904b";
    const PK_EM: &str = "1afa08d3dec047a643885163f1180476fa7ddb54c6a8029ea33f95796bf2ac4a";
    const IKM_R: &str = "1ac01f181fdf9f352797655161c58b75c656a6cc2716dcb66372da835542e1df";
    const PK_RM: &str = "4310ee97d88cc1f088a5576c77ab0cf5c3ac797f3d95139c6c84b5429c59662a";
    const SK_RM: &str = "8057991eef8f1f1af18f4a9491d16a1ce333f695d4db8e38da75975c4478e0fb";
    const ENC: &str = "1afa08d3dec047a643885163f1180476fa7ddb54c6a8029ea33f95796bf2ac4a";
    const PT: &str = "4265617574792069732074727574682c20747275746820626561757479";
    const AAD_0: &str = "436f756e742d30";
    const CT_0: &str = "1c5250d8034ec2b784ba2cfd69dbdb8af406cfe3ff938e131f0def8c8b60b4db21993c62ce81883d2dd1b51a28";

    /// Hands out fixed bytes: makes the ephemeral key of a seal equal DeriveKeyPair(ikmE).
    struct FixedRng(Vec<u8>);

    impl TryRng for FixedRng {
        type Error = Infallible;

        fn try_next_u32(&mut self) -> std::result::Result<u32, Infallible> {
            unreachable!("hpke only asks for bytes")
        }

        fn try_next_u64(&mut self) -> std::result::Result<u64, Infallible> {
            unreachable!("hpke only asks for bytes")
        }

        fn try_fill_bytes(&mut self, dst: &mut [u8]) -> std::result::Result<(), Infallible> {
            assert!(
                dst.len() <= self.0.len(),
                "asked for more fixed bytes than given"
            );
            let rest = self.0.split_off(dst.len());
            dst.copy_from_slice(&self.0);
            self.0 = rest;
            Ok(())
        }
    }

    impl TryCryptoRng for FixedRng {}

    #[test]
    fn rfc9180_a2_derive_key_pair() {
        let (_, pk_e) = derive_key_pair(&hex(IKM_E));
        assert_eq!(pk_e, arr(PK_EM), "DeriveKeyPair(ikmE) must give pkEm");
        let (sk_r, pk_r) = derive_key_pair(&hex(IKM_R));
        assert_eq!(pk_r, arr(PK_RM), "DeriveKeyPair(ikmR) must give pkRm");
        // The RFC prints skRm before clamping; SerializePrivateKey clamps (RFC 9180 §7.1.2).
        let mut clamped = arr(SK_RM);
        clamped[0] &= 248;
        clamped[31] &= 127;
        clamped[31] |= 64;
        assert_eq!(
            *sk_r, clamped,
            "DeriveKeyPair(ikmR) must give skRm (clamped)"
        );
        assert_eq!(public_key(&arr(SK_RM)), arr(PK_RM), "pk(skRm) must be pkRm");
    }

    #[test]
    fn rfc9180_a2_base_seal_is_byte_exact() {
        let mut rng = FixedRng(hex(IKM_E));
        let (enc, ct) = seal_with_rng(&arr(PK_RM), &hex(INFO), &hex(AAD_0), &hex(PT), &mut rng)
            .expect("sealing to the vector's recipient works");
        assert_eq!(enc.to_vec(), hex(ENC), "enc must match A.2.1");
        assert_eq!(ct, hex(CT_0), "ciphertext must match A.2.1.1 sequence 0");
    }

    #[test]
    fn rfc9180_a2_base_open() {
        let pt = open(
            &arr(SK_RM),
            &hex(ENC),
            &hex(INFO),
            &hex(AAD_0),
            &hex(CT_0),
            "kat",
        )
        .expect("the vector's ciphertext opens");
        assert_eq!(*pt, hex(PT), "plaintext must match A.2.1.1");
        let wrong_aad = open(
            &arr(SK_RM),
            &hex(ENC),
            &hex(INFO),
            b"Count-1",
            &hex(CT_0),
            "kat",
        );
        assert_eq!(
            wrong_aad,
            Err(Error::Decryption("kat")),
            "a different aad must not open"
        );
    }
}
