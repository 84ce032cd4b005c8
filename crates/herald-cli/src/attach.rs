//! `--block image:PATH[:ALT]`: an image block needs the id of its attachment, known only after
//! the upload, so these blocks are made here, after the other flags, by uploading the image
//! (encrypted, docs/files.md) and adding the attachment and a block that names it.

use std::path::Path;

use anyhow::{bail, Context, Result};
use herald_client::agent::AgentClient;
use herald_protocol::content::{Block, ImageBlock, MessageContent, IMAGE_TYPES};

/// Whether a `--block` spec is an image block (handled by [`add_image_blocks`]).
pub fn is_image_spec(spec: &str) -> bool {
    spec.trim_start().starts_with("image:")
}

/// Uploads every `--block image:PATH[:ALT]` and appends its block (after the other blocks)
/// and its attachment. ALT defaults to the file name.
pub async fn add_image_blocks(
    client: &AgentClient,
    specs: &[String],
    content: &mut MessageContent,
) -> Result<()> {
    for spec in specs.iter().filter(|s| is_image_spec(s)) {
        let rest = spec.trim_start().trim_start_matches("image:");
        let (path, alt) = match rest.split_once(':') {
            Some((p, a)) => (p.trim(), Some(a.trim().to_owned())),
            None => (rest.trim(), None),
        };
        if path.is_empty() {
            bail!("--block {spec:?}: expected image:PATH[:ALT]");
        }
        let path = Path::new(path);
        let mime = herald_client::files::guess_type(path);
        if !IMAGE_TYPES.contains(&mime.as_str()) {
            bail!("--block {spec:?}: an image block shows a .png, .jpg, .gif or .webp file");
        }
        let attachment = client
            .upload_file(path)
            .await
            .with_context(|| format!("--block {spec:?}"))?;
        let alt = alt
            .filter(|a| !a.is_empty())
            .unwrap_or_else(|| attachment.name.clone());
        content.blocks.push(Block::Image(ImageBlock {
            attachment_id: attachment.id.clone(),
            alt,
            requires_review: false,
        }));
        content.attachments.push(attachment);
    }
    Ok(())
}
