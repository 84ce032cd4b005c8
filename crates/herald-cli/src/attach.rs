//! `--block image:PATH[:ALT]`: an image block needs the id of its attachment, known only after
//! the upload, so these blocks are made here, after the other flags, by uploading the image
//! (encrypted, docs/files.md) and adding the attachment and a block that names it. The image
//! type comes from the file's magic bytes, never its extension.

use std::io::Read;
use std::path::Path;

use anyhow::{bail, Context, Result};
use herald_client::agent::AgentClient;
use herald_protocol::content::{Block, ImageBlock, MessageContent, IMAGE_TYPES};

/// Whether a `--block` spec is an image block (handled by [`add_image_blocks`]).
pub fn is_image_spec(spec: &str) -> bool {
    spec.trim_start().starts_with("image:")
}

/// The image type of the file at `path` from its first bytes (PNG, JPEG, GIF or WebP, the
/// types an image block shows), whatever its name says. Errors: unreadable, or not one of
/// those images.
fn image_type(path: &Path) -> Result<&'static str> {
    let mut head = Vec::with_capacity(64);
    std::fs::File::open(path)
        .and_then(|f| f.take(64).read_to_end(&mut head))
        .with_context(|| format!("reading {}", path.display()))?;
    match infer::get(&head).map(|t| t.mime_type()) {
        Some(mime) if IMAGE_TYPES.contains(&mime) => Ok(mime),
        _ => bail!(
            "{} is not a PNG, JPEG, GIF or WebP image (judged by its content, not its name)",
            path.display()
        ),
    }
}

/// `PATH` and `ALT` of an `image:PATH[:ALT]` spec (ALT `None` when not given or empty).
fn image_parts(spec: &str) -> Result<(&Path, Option<String>)> {
    let rest = spec.trim_start().trim_start_matches("image:");
    let (path, alt) = match rest.split_once(':') {
        Some((p, a)) => (p.trim(), Some(a.trim().to_owned())),
        None => (rest.trim(), None),
    };
    if path.is_empty() {
        bail!("--block {spec:?}: expected image:PATH[:ALT]");
    }
    Ok((Path::new(path), alt.filter(|a| !a.is_empty())))
}

/// Checks `content` as it will be sent — with every `--block image:` and every `--file`
/// standing in for its upload — before anything is uploaded: validation and the sealed size
/// ([`AgentClient::preflight`]). Only needed when there are image blocks (the SDK checks
/// `--file` alone before uploading).
pub async fn preflight(
    client: &AgentClient,
    specs: &[String],
    content: &MessageContent,
    files: &[std::path::PathBuf],
) -> Result<()> {
    let mut draft = content.clone();
    let mut any = false;
    for spec in specs.iter().filter(|s| is_image_spec(s)) {
        any = true;
        let (path, alt) = image_parts(spec)?;
        let mime = image_type(path).with_context(|| format!("--block {spec:?}"))?;
        let mut attachment = herald_client::agent::stand_in(draft.attachments.len(), path);
        attachment.mime_type = mime.to_owned();
        draft.blocks.push(Block::Image(ImageBlock {
            attachment_id: attachment.id.clone(),
            alt: alt.unwrap_or_else(|| attachment.name.clone()),
            requires_review: false,
        }));
        draft.attachments.push(attachment);
    }
    if any {
        client.preflight(&draft, files).await?;
    }
    Ok(())
}

/// Uploads every `--block image:PATH[:ALT]` and appends its block (after the other blocks)
/// and its attachment. ALT defaults to the file name.
pub async fn add_image_blocks(
    client: &AgentClient,
    specs: &[String],
    content: &mut MessageContent,
) -> Result<()> {
    for spec in specs.iter().filter(|s| is_image_spec(s)) {
        let (path, alt) = image_parts(spec)?;
        let mime = image_type(path).with_context(|| format!("--block {spec:?}"))?;
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .with_context(|| format!("--block {spec:?}: {} is not a file", path.display()))?;
        let attachment = client
            .upload_file_as(path, &name, mime)
            .await
            .with_context(|| format!("--block {spec:?}"))?;
        let alt = alt.unwrap_or_else(|| attachment.name.clone());
        content.blocks.push(Block::Image(ImageBlock {
            attachment_id: attachment.id.clone(),
            alt,
            requires_review: false,
        }));
        content.attachments.push(attachment);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn image_types_come_from_the_content() {
        let dir = tempfile::tempdir().unwrap();
        let text = dir.path().join("fake.png");
        std::fs::write(&text, "not an image at all").unwrap();
        assert!(image_type(&text).is_err(), "a text file named .png");
        let png = dir.path().join("chart.jpg");
        std::fs::write(&png, herald_client::demo::DEMO_IMAGE).unwrap();
        assert_eq!(image_type(&png).unwrap(), "image/png", "a PNG named .jpg");
        let gif = dir.path().join("anim");
        std::fs::write(&gif, b"GIF89a\x01\x00\x01\x00\x00\x00\x00").unwrap();
        assert_eq!(image_type(&gif).unwrap(), "image/gif");
        assert!(image_type(&dir.path().join("missing.png")).is_err());
    }
}
