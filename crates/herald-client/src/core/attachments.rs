//! The device core's file API (docs/files.md): save a message's (or its answer's) attachment
//! to disk, and load an image attachment for an image block. The attachment's key stays in
//! the core; the UI only ever sees [`crate::view::AttachmentView`].

use std::path::Path;

use herald_protocol::content::{Attachment, MAX_INLINE_IMAGE_BYTES};

use super::Core;
use crate::{files, view::present, Error, Result};

impl Core {
    /// The attachment `attachment_id` of message `message_id`, from the cached content or
    /// the cached answer. Errors: `not_found`.
    async fn attachment(&self, message_id: &str, attachment_id: &str) -> Result<Attachment> {
        let owned = message_id.to_owned();
        let row = self.inner.store.cache_call(move |c| c.get(&owned)).await?;
        let key = &self.inner.store.local.key;
        let opened = present::opened(key, &row)?;
        let answer = present::answer_content(key, &row);
        opened
            .content
            .attachments
            .iter()
            .chain(answer.iter().flat_map(|a| a.attachments.iter()))
            .find(|a| a.id == attachment_id)
            .cloned()
            .ok_or_else(|| Error::NotFound(format!("attachment {attachment_id}")))
    }

    /// Downloads, decrypts and verifies an attachment of a message (or of its answer) and
    /// saves it at `dest` with mode 0600. `dest` must not exist; nothing is written there
    /// unless the size and SHA-256 match. Errors: `not_found` (no such message or
    /// attachment), `invalid_input` (dest exists), `file_expired` (the relay deleted it),
    /// `file_integrity`, `network`, `storage`.
    pub async fn save_attachment(
        &self,
        message_id: &str,
        attachment_id: &str,
        dest: &Path,
    ) -> Result<()> {
        let session = self.inner.session()?;
        let attachment = self.attachment(message_id, attachment_id).await?;
        files::download_file(&session.http, &attachment, dest).await
    }

    /// The MIME type and bytes of an image attachment, for an image block: PNG, JPEG, GIF or
    /// WebP of at most 10 MB (`MAX_INLINE_IMAGE_BYTES`), decrypted and verified in memory.
    /// Errors: `not_found`, `invalid_input` (not an image type, or too large to show
    /// inline), `file_expired`, `file_integrity`, `network`.
    pub async fn attachment_bytes_for_image(
        &self,
        message_id: &str,
        attachment_id: &str,
    ) -> Result<(String, Vec<u8>)> {
        let session = self.inner.session()?;
        let attachment = self.attachment(message_id, attachment_id).await?;
        if !attachment.is_image() {
            return Err(Error::InvalidInput(format!(
                "{} is not a PNG, JPEG, GIF or WebP image",
                attachment.mime_type
            )));
        }
        let bytes =
            files::download_bytes(&session.http, &attachment, MAX_INLINE_IMAGE_BYTES).await?;
        Ok((attachment.mime_type, bytes))
    }
}
