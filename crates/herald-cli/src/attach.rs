//! `--block image:PATH[:ALT]`: an image block needs the id of its attachment, known only after
//! the upload, so these blocks are made here, after the other flags, by uploading the image
//! (encrypted, docs/files.md) and adding the attachment and a block that names it. The image
//! type comes from the file's magic bytes, never its extension.

use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use herald_client::agent::{stand_in_attachment, AgentClient};
use herald_protocol::content::{
    Attachment, Block, ImageBlock, MessageContent, IMAGE_TYPES, MAX_ATTACHMENTS,
};

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

/// One `--block image:PATH[:ALT]`, checked locally (the file's type and name) and not yet
/// uploaded.
pub struct ImageSpec {
    spec: String,
    path: PathBuf,
    name: String,
    mime: &'static str,
    alt: Option<String>,
}

/// Parses and checks every `--block image:PATH[:ALT]` before anything is uploaded: PATH is
/// an image by its content (`\:` for a colon in PATH); ALT is the rest, colons included, and
/// defaults to the file name.
pub fn image_specs(specs: &[String]) -> Result<Vec<ImageSpec>> {
    let mut images = Vec::new();
    for spec in specs.iter().filter(|s| crate::content::is_image_spec(s)) {
        let (path, alt) = crate::content::image_parts(spec);
        if path.is_empty() {
            bail!("--block {spec:?}: expected image:PATH[:ALT]");
        }
        let path = PathBuf::from(path);
        herald_client::files::check_local_file(&path)
            .map_err(|e| anyhow::anyhow!("--block {spec:?}: {e}"))?;
        let mime = image_type(&path).with_context(|| format!("--block {spec:?}"))?;
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .with_context(|| format!("--block {spec:?}: {} is not a file", path.display()))?;
        images.push(ImageSpec {
            spec: spec.clone(),
            path,
            name,
            mime,
            alt: alt.filter(|a| !a.is_empty()),
        });
    }
    Ok(images)
}

/// `content` as it will be once the images are uploaded, with stand-in attachments (ids
/// distinct from the SDK's stand-ins for `--file`), to validate it before any upload.
pub fn draft(content: &MessageContent, images: &[ImageSpec]) -> MessageContent {
    let mut draft = content.clone();
    for (i, image) in images.iter().enumerate() {
        let mut attachment = stand_in_attachment(MAX_ATTACHMENTS + i, &image.path);
        attachment.name = image.name.clone();
        attachment.mime_type = image.mime.to_owned();
        push_image(&mut draft, image, attachment);
    }
    draft
}

fn push_image(content: &mut MessageContent, image: &ImageSpec, attachment: Attachment) {
    let alt = image.alt.clone().unwrap_or_else(|| attachment.name.clone());
    content.blocks.push(Block::Image(ImageBlock {
        attachment_id: attachment.id.clone(),
        alt,
        requires_review: false,
    }));
    content.attachments.push(attachment);
}

/// Uploads every image (checked by [`image_specs`], the content validated on its
/// [`draft`]) and appends its block (after the other blocks) and its attachment.
pub async fn add_image_blocks(
    client: &AgentClient,
    images: &[ImageSpec],
    content: &mut MessageContent,
) -> Result<()> {
    for image in images {
        let attachment = client
            .upload_file_as(&image.path, &image.name, image.mime)
            .await
            .with_context(|| format!("--block {:?}", image.spec))?;
        push_image(content, image, attachment);
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
