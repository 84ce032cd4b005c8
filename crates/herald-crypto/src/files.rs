//! Encrypted files (attachments): streaming encryption in the age v1 format to a one-off
//! X25519 identity made for each file (protocol-decisions.md, "Files"; docs/files.md).
//!
//! The `age` crate does all the cryptography (X25519 recipient stanza, HKDF-SHA256 header
//! MAC, ChaCha20-Poly1305 STREAM in 64 KiB chunks with a last-chunk flag); no Herald label is
//! involved. This module fixes how it is used: one fresh identity per file, never reused, and
//! the identity, plaintext size and SHA-256 of the plaintext travel inside the encrypted
//! message as the attachment's `key`, `size` and `sha256`, so a reader checks that it got
//! exactly the file the sender meant.
//!
//! Both directions stream through `std::io::Read`/`Write` with fixed buffers (one 64 KiB
//! plaintext buffer plus age's one chunk), so memory stays bounded whatever the file size.
//! Decryption rejects a truncated stream, a tampered chunk, trailing data, a wrong key, and a
//! plaintext whose size or SHA-256 differs from what the message promised, each with its own
//! [`FileError`] variant. Callers write the plaintext to a temporary place and only keep it
//! once [`decrypt_file`] returned `Ok`: before that, bytes written may be unauthenticated.

use std::cell::Cell;
use std::fmt;
use std::io::{self, Read, Write};
use std::rc::Rc;
use std::str::FromStr;

use age::secrecy::ExposeSecret;
use ring::digest;
use zeroize::Zeroizing;

/// Plaintext buffer of the copy loops (one age STREAM chunk).
const BUFFER: usize = 64 * 1024;
/// Prefix of an age X25519 identity string (Bech32, upper case).
pub const FILE_KEY_PREFIX: &str = "AGE-SECRET-KEY-1";
/// Length of an age X25519 identity string: the prefix and 58 Bech32 characters.
pub const FILE_KEY_LEN: usize = 74;

/// What can go wrong encrypting or decrypting a file. Messages never contain key material.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    /// Reading the input or writing the output failed (the caller's streams, not the crypto).
    #[error("file i/o: {0}")]
    Io(#[source] io::Error),
    /// The plaintext is larger than the caller's limit (bytes).
    #[error("the file is larger than {limit} bytes")]
    TooLarge {
        /// The limit that was passed, in bytes.
        limit: u64,
    },
    /// The key is not an age X25519 identity (`AGE-SECRET-KEY-1…`).
    #[error("malformed file key")]
    InvalidKey,
    /// The input is not an age v1 file (bad or unknown header).
    #[error("not an age v1 file")]
    Malformed,
    /// The key does not open this file (no stanza matches, or the header MAC fails).
    #[error("the key does not open this file")]
    WrongKey,
    /// The ciphertext ended before its last chunk.
    #[error("the encrypted file is truncated")]
    Truncated,
    /// A chunk failed authentication, or data follows the last chunk.
    #[error("the encrypted file was tampered with")]
    Tampered,
    /// The plaintext has another size than expected.
    #[error("the file has {actual} bytes, the message says {expected}")]
    SizeMismatch {
        /// Bytes promised by the message.
        expected: u64,
        /// Bytes decrypted (at most one more than `expected`: reading stops there).
        actual: u64,
    },
    /// The plaintext's SHA-256 differs from the one the message carries.
    #[error("the file's SHA-256 does not match the message")]
    HashMismatch,
}

impl FileError {
    /// A stable, machine-readable code for the variant.
    pub fn code(&self) -> &'static str {
        match self {
            FileError::Io(_) => "io",
            FileError::TooLarge { .. } => "too_large",
            FileError::InvalidKey => "invalid_key",
            FileError::Malformed => "malformed",
            FileError::WrongKey => "wrong_key",
            FileError::Truncated => "truncated",
            FileError::Tampered => "tampered",
            FileError::SizeMismatch { .. } => "size_mismatch",
            FileError::HashMismatch => "hash_mismatch",
        }
    }
}

/// A file's one-off age X25519 identity, as its Bech32 string `AGE-SECRET-KEY-1…` (74
/// characters; the attachment's `key`). Zeroized on drop; `Debug` redacts.
#[derive(Clone)]
pub struct FileKey(Zeroizing<String>);

impl FileKey {
    /// A fresh random identity (age's generator over the OS CSPRNG).
    pub fn generate() -> FileKey {
        let identity = age::x25519::Identity::generate();
        FileKey(Zeroizing::new(
            identity.to_string().expose_secret().to_owned(),
        ))
    }

    /// Parses an identity string. Errors: [`FileError::InvalidKey`].
    pub fn parse(text: &str) -> Result<FileKey, FileError> {
        let key = FileKey(Zeroizing::new(text.to_owned()));
        key.identity()?;
        Ok(key)
    }

    /// The identity string, to put into the encrypted message. Treat it as a secret.
    pub fn expose(&self) -> &str {
        &self.0
    }

    fn identity(&self) -> Result<age::x25519::Identity, FileError> {
        age::x25519::Identity::from_str(&self.0).map_err(|_| FileError::InvalidKey)
    }
}

impl fmt::Debug for FileKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("FileKey(<redacted>)")
    }
}

/// What [`encrypt_file`] produced.
#[derive(Debug, Clone)]
pub struct EncryptedFile {
    /// The file's one-off identity (the attachment's `key`).
    pub key: FileKey,
    /// Plaintext bytes read.
    pub plaintext_size: u64,
    /// SHA-256 of the plaintext.
    pub sha256: [u8; 32],
    /// Ciphertext bytes written (what the relay stores; the reservation's `size`).
    pub encrypted_size: u64,
}

/// Counts bytes through a writer.
struct CountingWriter<W> {
    inner: W,
    count: u64,
}

impl<W: Write> Write for CountingWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.count += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// Reads `buf.len()` bytes unless the input ends first; retries on `Interrupted`.
fn read_full(input: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match input.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

/// Encrypts everything `input` yields to a fresh identity and writes the age file to
/// `output`, streaming. Refuses plaintext over `max_plaintext` bytes ([`FileError::TooLarge`],
/// detected while reading, so `output` then holds a partial file the caller must discard).
/// `output` is flushed, not synced.
pub fn encrypt_file(
    mut input: impl Read,
    output: impl Write,
    max_plaintext: u64,
) -> Result<EncryptedFile, FileError> {
    let key = FileKey::generate();
    let recipient = key.identity()?.to_public();
    let encryptor =
        age::Encryptor::with_recipients(std::iter::once(&recipient as &dyn age::Recipient))
            .map_err(|_| FileError::InvalidKey)?;
    let counted = CountingWriter {
        inner: output,
        count: 0,
    };
    let mut writer = encryptor.wrap_output(counted).map_err(FileError::Io)?;
    let mut hash = digest::Context::new(&digest::SHA256);
    let mut buf = Zeroizing::new(vec![0u8; BUFFER]);
    let mut plaintext_size = 0u64;
    loop {
        let n = read_full(&mut input, &mut buf).map_err(FileError::Io)?;
        if n == 0 {
            break;
        }
        plaintext_size += n as u64;
        if plaintext_size > max_plaintext {
            return Err(FileError::TooLarge {
                limit: max_plaintext,
            });
        }
        hash.update(&buf[..n]);
        writer.write_all(&buf[..n]).map_err(FileError::Io)?;
    }
    let mut counted = writer.finish().map_err(FileError::Io)?;
    counted.flush().map_err(FileError::Io)?;
    let mut sha256 = [0u8; 32];
    sha256.copy_from_slice(hash.finish().as_ref());
    Ok(EncryptedFile {
        key,
        plaintext_size,
        sha256,
        encrypted_size: counted.count,
    })
}

/// Remembers whether the underlying reader failed, so a transport error is reported as
/// [`FileError::Io`] and not mistaken for tampering.
struct WatchedReader<R> {
    inner: R,
    failed: Rc<Cell<bool>>,
}

impl<R: Read> Read for WatchedReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.inner.read(buf).inspect_err(|e| {
            if e.kind() != io::ErrorKind::Interrupted {
                self.failed.set(true);
            }
        })
    }
}

/// Decrypts the age file read from `input` with `key` and writes the plaintext to `output`,
/// streaming, then checks that exactly `expected_size` bytes with SHA-256 `expected_sha256`
/// came out. Reading stops one byte past `expected_size`, so a hostile file cannot fill the
/// disk. Errors: [`FileError::Malformed`], [`FileError::WrongKey`], [`FileError::Truncated`],
/// [`FileError::Tampered`], [`FileError::SizeMismatch`], [`FileError::HashMismatch`],
/// [`FileError::Io`] (the caller's streams). On any error, discard what `output` received.
pub fn decrypt_file(
    input: impl Read,
    mut output: impl Write,
    key: &FileKey,
    expected_size: u64,
    expected_sha256: &[u8; 32],
) -> Result<(), FileError> {
    let identity = key.identity()?;
    let failed = Rc::new(Cell::new(false));
    let watched = WatchedReader {
        inner: input,
        failed: failed.clone(),
    };
    let decryptor = match age::Decryptor::new(watched) {
        Ok(d) => d,
        Err(age::DecryptError::Io(e)) if failed.get() => return Err(FileError::Io(e)),
        Err(age::DecryptError::Io(_)) => return Err(FileError::Truncated),
        Err(_) => return Err(FileError::Malformed),
    };
    if decryptor.is_scrypt() {
        return Err(FileError::WrongKey);
    }
    let mut reader = match decryptor.decrypt(std::iter::once(&identity as &dyn age::Identity)) {
        Ok(r) => r,
        Err(age::DecryptError::NoMatchingKeys)
        | Err(age::DecryptError::InvalidMac)
        | Err(age::DecryptError::DecryptionFailed)
        | Err(age::DecryptError::KeyDecryptionFailed) => return Err(FileError::WrongKey),
        Err(_) => return Err(FileError::Malformed),
    };
    let mut hash = digest::Context::new(&digest::SHA256);
    let mut buf = Zeroizing::new(vec![0u8; BUFFER]);
    let mut size = 0u64;
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => {
                return Err(if failed.get() {
                    FileError::Io(e)
                } else if e.kind() == io::ErrorKind::UnexpectedEof {
                    FileError::Truncated
                } else {
                    FileError::Tampered
                })
            }
        };
        size += n as u64;
        if size > expected_size {
            return Err(FileError::SizeMismatch {
                expected: expected_size,
                actual: size.min(expected_size + 1),
            });
        }
        hash.update(&buf[..n]);
        output.write_all(&buf[..n]).map_err(FileError::Io)?;
    }
    output.flush().map_err(FileError::Io)?;
    if size != expected_size {
        return Err(FileError::SizeMismatch {
            expected: expected_size,
            actual: size,
        });
    }
    let actual = hash.finish();
    let same: bool = subtle::ConstantTimeEq::ct_eq(actual.as_ref(), &expected_sha256[..]).into();
    if !same {
        return Err(FileError::HashMismatch);
    }
    Ok(())
}

#[cfg(test)]
mod tests;
