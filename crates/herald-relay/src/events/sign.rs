//! Standard Webhooks signatures, as profiled by SEP-3415 (docs/mcp.md, "Reply event"):
//!
//! ```text
//! webhook-signature: v1,<base64(HMAC-SHA256(secret, webhook-id "." webhook-timestamp "." body))>
//! ```
//!
//! `secret` is the decoded bytes after `whsec_`, `webhook-timestamp` whole Unix seconds, `body`
//! the exact bytes sent. During a secret rotation the header carries one `v1,` signature per
//! secret, separated by a space.

use ring::hmac;

use super::secret::WebhookSecret;

/// `webhook-id`.
pub const WEBHOOK_ID: &str = "webhook-id";
/// `webhook-timestamp`.
pub const WEBHOOK_TIMESTAMP: &str = "webhook-timestamp";
/// `webhook-signature`.
pub const WEBHOOK_SIGNATURE: &str = "webhook-signature";
/// The MCP-specific header naming the subscription (SEP-3415).
pub const SUBSCRIPTION_ID: &str = "x-mcp-subscription-id";

/// The `v1,<base64>` signature of one message under one secret.
pub fn signature(secret: &WebhookSecret, id: &str, timestamp: i64, body: &[u8]) -> String {
    let key = hmac::Key::new(hmac::HMAC_SHA256, secret.bytes());
    let mut ctx = hmac::Context::with_key(&key);
    ctx.update(id.as_bytes());
    ctx.update(b".");
    ctx.update(timestamp.to_string().as_bytes());
    ctx.update(b".");
    ctx.update(body);
    format!("v1,{}", data_encoding::BASE64.encode(ctx.sign().as_ref()))
}

/// The `webhook-signature` value: one signature per secret, space-separated.
pub fn header(secrets: &[WebhookSecret], id: &str, timestamp: i64, body: &[u8]) -> String {
    secrets
        .iter()
        .map(|s| signature(s, id, timestamp, body))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The example of the Standard Webhooks specification (and of its reference libraries).
    #[test]
    fn matches_the_standard_webhooks_example() {
        let secret = WebhookSecret::parse("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").unwrap();
        let body = br#"{"test": 2432232314}"#;
        assert_eq!(
            signature(&secret, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body),
            "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
        );
    }

    #[test]
    fn rotation_signs_with_every_secret() {
        let a = WebhookSecret::parse(&format!("whsec_{}", data_encoding::BASE64.encode(&[1; 24])))
            .unwrap();
        let b = WebhookSecret::parse(&format!("whsec_{}", data_encoding::BASE64.encode(&[2; 24])))
            .unwrap();
        let h = header(&[a.clone(), b.clone()], "x", 1, b"{}");
        assert_eq!(
            h,
            format!(
                "{} {}",
                signature(&a, "x", 1, b"{}"),
                signature(&b, "x", 1, b"{}")
            )
        );
    }
}
