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

/// Reads one frame. `Closed` at a clean end of the stream before a frame starts.
pub async fn read<T: DeserializeOwned>(
    reader: &mut (impl AsyncReadExt + Unpin),
) -> Result<T, FrameError> {
    let len = match reader.read_u32().await {
        Ok(len) => len,
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Err(FrameError::Closed),
        Err(e) => return Err(e.into()),
    };
    if len > MAX_FRAME {
        return Err(FrameError::TooLarge(len));
    }
    let mut body = vec![0; len as usize];
    reader.read_exact(&mut body).await?;
    Ok(serde_json::from_slice(&body)?)
}

/// Writes one frame and flushes it.
pub async fn write<T: Serialize>(
    writer: &mut (impl AsyncWriteExt + Unpin),
    value: &T,
) -> Result<(), FrameError> {
    let body = serde_json::to_vec(value)?;
    let len = u32::try_from(body.len())
        .ok()
        .filter(|len| *len <= MAX_FRAME)
        .ok_or(FrameError::TooLarge(u32::MAX))?;
    writer.write_u32(len).await?;
    writer.write_all(&body).await?;
    writer.flush().await?;
    Ok(())
}

/// Blocking versions for the hello, which runs before any async runtime exists.
pub mod blocking {
    use std::io::{Read, Write};

    use super::{FrameError, MAX_FRAME};

    /// Reads one frame from a blocking stream.
    pub fn read<T: serde::de::DeserializeOwned>(reader: &mut impl Read) -> Result<T, FrameError> {
        let mut len = [0u8; 4];
        match reader.read_exact(&mut len) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
                return Err(FrameError::Closed)
            }
            Err(e) => return Err(e.into()),
        }
        let len = u32::from_be_bytes(len);
        if len > MAX_FRAME {
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
        let body = serde_json::to_vec(value)?;
        let len = u32::try_from(body.len())
            .ok()
            .filter(|len| *len <= MAX_FRAME)
            .ok_or(FrameError::TooLarge(u32::MAX))?;
        writer.write_all(&len.to_be_bytes())?;
        writer.write_all(&body)?;
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

        drop(a);
        let error = read::<serde_json::Value>(&mut b).await.unwrap_err();
        assert!(matches!(error, FrameError::Closed), "{error}");
    }
}
