//! Frames on the window link: a 4-byte big-endian length, then that many bytes of JSON.

use serde::de::DeserializeOwned;
use serde::Serialize;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// The largest frame either side accepts (an `attachment_image` reply carries an image of up
/// to 100 MB as base64).
pub const MAX_FRAME: u32 = 160 * 1024 * 1024;

/// Why a frame could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum FrameError {
    #[error("the link closed")]
    Closed,
    #[error("link i/o: {0}")]
    Io(#[from] std::io::Error),
    #[error("a frame of {0} bytes is over the limit")]
    TooLarge(u32),
    #[error("a frame is not the expected JSON: {0}")]
    Json(#[from] serde_json::Error),
}

/// The largest hello (and welcome): read before the token is checked, so a process without it
/// cannot make the other side allocate more than this.
pub const MAX_HELLO: u32 = 16 * 1024;

/// Reads one frame of at most [`MAX_FRAME`] bytes. `Closed` at a clean end of the stream
/// before a frame starts.
pub async fn read<T: DeserializeOwned>(
    reader: &mut (impl AsyncReadExt + Unpin),
) -> Result<T, FrameError> {
    read_at_most(reader, MAX_FRAME).await
}

/// Reads one frame of at most `max` bytes (`TooLarge` before anything is allocated).
pub async fn read_at_most<T: DeserializeOwned>(
    reader: &mut (impl AsyncReadExt + Unpin),
    max: u32,
) -> Result<T, FrameError> {
    let len = match reader.read_u32().await {
        Ok(len) => len,
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Err(FrameError::Closed),
        Err(e) => return Err(e.into()),
    };
    if len > max {
        return Err(FrameError::TooLarge(len));
    }
    let mut body = vec![0; len as usize];
    reader.read_exact(&mut body).await?;
    Ok(serde_json::from_slice(&body)?)
}

/// `value` as one frame: its length, then its JSON. Errors: `TooLarge` over [`MAX_FRAME`].
fn encode<T: Serialize>(value: &T) -> Result<Vec<u8>, FrameError> {
    let mut frame = vec![0; 4];
    serde_json::to_writer(&mut frame, value)?;
    let len = u32::try_from(frame.len() - 4)
        .ok()
        .filter(|len| *len <= MAX_FRAME)
        .ok_or(FrameError::TooLarge(u32::MAX))?;
    frame[..4].copy_from_slice(&len.to_be_bytes());
    Ok(frame)
}

/// Writes one frame and flushes it.
pub async fn write<T: Serialize>(
    writer: &mut (impl AsyncWriteExt + Unpin),
    value: &T,
) -> Result<(), FrameError> {
    writer.write_all(&encode(value)?).await?;
    writer.flush().await?;
    Ok(())
}

/// Blocking versions for the hello, which runs before any async runtime exists.
pub mod blocking {
    use std::io::{Read, Write};

    use super::{encode, FrameError};

    /// Reads one frame of at most `max` bytes from a blocking stream.
    pub fn read<T: serde::de::DeserializeOwned>(
        reader: &mut impl Read,
        max: u32,
    ) -> Result<T, FrameError> {
        let mut len = [0u8; 4];
        match reader.read_exact(&mut len) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
                return Err(FrameError::Closed)
            }
            Err(e) => return Err(e.into()),
        }
        let len = u32::from_be_bytes(len);
        if len > max {
            return Err(FrameError::TooLarge(len));
        }
        let mut body = vec![0; len as usize];
        reader.read_exact(&mut body)?;
        Ok(serde_json::from_slice(&body)?)
    }

    /// Writes one frame to a blocking stream.
    pub fn write<T: serde::Serialize>(
        writer: &mut impl Write,
        value: &T,
    ) -> Result<(), FrameError> {
        writer.write_all(&encode(value)?)?;
        writer.flush()?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn frames_round_trip_and_oversized_ones_are_refused() {
        let (mut a, mut b) = tokio::io::duplex(1024);
        write(&mut a, &serde_json::json!({"type": "attend"}))
            .await
            .unwrap();
        let back: serde_json::Value = read(&mut b).await.unwrap();
        assert_eq!(back["type"], "attend");

        a.write_u32(MAX_FRAME + 1).await.unwrap();
        let error = read::<serde_json::Value>(&mut b).await.unwrap_err();
        assert!(matches!(error, FrameError::TooLarge(_)), "{error}");

        // A hello-sized read refuses a frame a call may send.
        a.write_u32(MAX_HELLO + 1).await.unwrap();
        let error = read_at_most::<serde_json::Value>(&mut b, MAX_HELLO)
            .await
            .unwrap_err();
        assert!(matches!(error, FrameError::TooLarge(_)), "{error}");

        drop(a);
        let error = read::<serde_json::Value>(&mut b).await.unwrap_err();
        assert!(matches!(error, FrameError::Closed), "{error}");
    }
}
