//! The one event type the relay offers (docs/mcp.md, "Reply event"): its `events/list`
//! descriptor, its subscription arguments, and the occurrence body delivered to webhooks.

use herald_protocol::notify::{is_valid_notification_id, MAX_NOTIFICATION_ID_LEN};
use serde_json::{json, Map, Value};

/// The event's name.
pub const REPLY_EVENT: &str = "notification.replied";

/// The arguments of a reply subscription: one notification, or every notification the
/// subscribing credential sends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplyArguments {
    /// The agent's `notificationId` (any notification of the account with that id, as
    /// `GET /v1/replies/{notificationId}` reads it); `None`: replies to every notification
    /// this credential sent.
    pub notification_id: Option<String>,
}

impl ReplyArguments {
    /// Reads `arguments` (absent or `null` = `{}`). Only `notificationId` is accepted; the
    /// error message names what is wrong.
    pub fn parse(arguments: Option<&Value>) -> Result<ReplyArguments, String> {
        let object = match arguments {
            None | Some(Value::Null) => {
                return Ok(ReplyArguments {
                    notification_id: None,
                })
            }
            Some(Value::Object(o)) => o,
            Some(_) => return Err("arguments must be an object.".into()),
        };
        if let Some(other) = object.keys().find(|k| *k != "notificationId") {
            return Err(format!(
                "arguments.{other} is not an argument of {REPLY_EVENT}; it takes notificationId only."
            ));
        }
        match object.get("notificationId") {
            None | Some(Value::Null) => Ok(ReplyArguments {
                notification_id: None,
            }),
            Some(Value::String(id)) if is_valid_notification_id(id) => Ok(ReplyArguments {
                notification_id: Some(id.clone()),
            }),
            Some(_) => Err(
                "arguments.notificationId must be 1 to 128 characters of A-Z a-z 0-9 . _ : -."
                    .into(),
            ),
        }
    }

    /// The canonical JSON of the arguments (sorted keys, no `null`s): part of the
    /// subscription key.
    pub fn canonical(&self) -> String {
        let mut map = Map::new();
        if let Some(id) = &self.notification_id {
            map.insert("notificationId".into(), json!(id));
        }
        Value::Object(map).to_string()
    }
}

/// The `events/list` entry of the reply event.
pub fn descriptor() -> Value {
    json!({
        "name": REPLY_EVENT,
        "description": "Fires the moment the user answers a notification sent with expectReply. \
            The payload is what wait_for_reply would return: the notificationId, replied: true, \
            the typed text (or a voice transcript with audioUrl and durationSeconds) and \
            repliedAt. Subscribe with notificationId for one notification, or without \
            arguments for every notification this credential sends. Webhook delivery only, \
            signed per Standard Webhooks with the secret you supply.",
        "delivery": ["webhook"],
        "inputSchema": {
            "type": "object",
            "properties": {
                "notificationId": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": MAX_NOTIFICATION_ID_LEN,
                    "pattern": "^[A-Za-z0-9._:-]+$",
                    "description": "Only replies to this notification (the id send_notification returned). Omit for every notification this credential sends."
                }
            },
            "additionalProperties": false
        },
        "payloadSchema": {
            "type": "object",
            "properties": {
                "notificationId": {"type": "string"},
                "replied": {"type": "boolean", "const": true},
                "text": {"type": "string", "description": "A typed answer."},
                "transcript": {"type": "string", "description": "A voice answer, transcribed on the user's device (may be imperfect)."},
                "audioUrl": {"type": "string", "format": "uri", "description": "The voice answer's audio, valid for 3600 seconds."},
                "durationSeconds": {"type": "number"},
                "repliedAt": {"type": "string", "format": "date-time"},
                "suppressed": {"type": "boolean", "description": "Quiet hours held when the notification arrived."}
            },
            "required": ["notificationId", "replied", "repliedAt", "suppressed"]
        }
    })
}

/// The body of one reply delivery (an `EventOccurrence`): `eventId`, `name`, `timestamp` (the
/// reply's time), `data` (the `GET /v1/replies` answer) and `cursor: null` (no replay).
pub fn occurrence(event_id: &str, timestamp: &str, data: &Value) -> Vec<u8> {
    json!({
        "eventId": event_id,
        "name": REPLY_EVENT,
        "timestamp": timestamp,
        "data": data,
        "cursor": null,
    })
    .to_string()
    .into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments() {
        let ok = |v: Value| ReplyArguments::parse(Some(&v));
        assert_eq!(ReplyArguments::parse(None).unwrap().notification_id, None);
        assert_eq!(ok(json!({})).unwrap().canonical(), "{}");
        assert_eq!(
            ok(json!({"notificationId": "build-214"}))
                .unwrap()
                .canonical(),
            r#"{"notificationId":"build-214"}"#
        );
        assert!(ok(json!({"notificationId": "bad id"})).is_err());
        assert!(ok(json!({"notificationId": 7})).is_err());
        assert!(ok(json!({"other": 1})).is_err());
        assert!(ok(json!([1])).is_err());
    }
}
