//! `events/list`, `events/subscribe`, `events/unsubscribe`: the MCP Events extension
//! (`io.modelcontextprotocol/events`, SEP-3415) for stateless (2026-07-28) clients, webhook
//! delivery only (docs/mcp.md, "Reply event"). A session-less client asking for them gets
//! -32601 from [`super::dispatch`].
//!
//! Runs after the status check (authenticated, one request charged) and the Origin check.
//! The subscriber is the calling agent credential. Errors use SEP-3415's codes:
//! `InvalidParams` -32602, `NotFound` -32023, `Forbidden` -32024, `ResourceExhausted` -32025,
//! `Unsupported` -32026, `CallbackEndpointError` -32027.

use axum::http::HeaderMap;
use serde_json::{json, Map, Value};

use super::dispatch::{self, Reply};
use super::jsonrpc::{RequestId, RpcError, INTERNAL_ERROR, INVALID_PARAMS};
use super::version::ClientKind;
use crate::agents::authenticate_agent;
use crate::clock::format_time;
use crate::events::catalog::{self, ReplyArguments, REPLY_EVENT};
use crate::events::secret::WebhookSecret;
use crate::events::{self, target, EventError, SubscribeRequest, Ttl};
use crate::state::AppState;
use crate::store::events::Subscriber;

/// A referenced entity does not exist (SEP-3415 `NotFound`).
pub const NOT_FOUND: i64 = -32023;
/// The principal may not do this (SEP-3415 `Forbidden`).
pub const FORBIDDEN: i64 = -32024;
/// A server limit was reached (SEP-3415 `ResourceExhausted`).
pub const RESOURCE_EXHAUSTED: i64 = -32025;
/// A well-formed request for something not offered (SEP-3415 `Unsupported`).
pub const UNSUPPORTED: i64 = -32026;
/// The callback endpoint failed verification or could not be reached (SEP-3415).
pub const CALLBACK_ENDPOINT_ERROR: i64 = -32027;

/// The extension's identifier, the key of its entry in `capabilities.extensions`.
pub const EXTENSION_ID: &str = "io.modelcontextprotocol/events";

/// One of the three methods.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventsMethod {
    List,
    Subscribe,
    Unsubscribe,
}

impl EventsMethod {
    /// The method for a JSON-RPC method name, if it is one of the three.
    pub fn from_name(method: &str) -> Option<EventsMethod> {
        match method {
            "events/list" => Some(EventsMethod::List),
            "events/subscribe" => Some(EventsMethod::Subscribe),
            "events/unsubscribe" => Some(EventsMethod::Unsubscribe),
            _ => None,
        }
    }
}

fn invalid(message: impl Into<String>) -> RpcError {
    RpcError::new(
        INVALID_PARAMS,
        format!("Invalid params: {}", message.into()),
    )
}

fn not_found(kind: &str) -> RpcError {
    RpcError::new(NOT_FOUND, "Not found").with_data(json!({ "kind": kind }))
}

/// `params.name`, which must be the reply event.
fn event_name(params: &Map<String, Value>) -> Result<(), RpcError> {
    match params.get("name") {
        Some(Value::String(name)) if name == REPLY_EVENT => Ok(()),
        Some(Value::String(_)) => Err(not_found("event")),
        _ => Err(invalid("name must be the event's name (a string).")),
    }
}

/// `params.delivery`: its `mode` (if given) must be `webhook`; returns the object.
fn delivery(params: &Map<String, Value>) -> Result<&Map<String, Value>, RpcError> {
    let delivery = params
        .get("delivery")
        .and_then(Value::as_object)
        .ok_or_else(|| invalid("delivery must be an object with url (and secret)."))?;
    match delivery.get("mode") {
        None | Some(Value::Null) => {}
        Some(Value::String(mode)) if mode == "webhook" => {}
        Some(other) => {
            return Err(RpcError::new(UNSUPPORTED, "Unsupported")
                .with_data(json!({"feature": "deliveryMode", "value": other})))
        }
    }
    Ok(delivery)
}

fn callback_url(state: &AppState, delivery: &Map<String, Value>) -> Result<reqwest::Url, RpcError> {
    let raw = delivery
        .get("url")
        .and_then(Value::as_str)
        .ok_or_else(|| invalid("delivery.url must be a string."))?;
    target::parse(raw, state.config().webhooks.allow_loopback).map_err(|e| invalid(e.to_string()))
}

fn ttl(params: &Map<String, Value>) -> Result<Ttl, RpcError> {
    match params.get("ttlMs") {
        None => Ok(Ttl::Default),
        Some(Value::Null) => Ok(Ttl::NoExpiry),
        Some(v) => v
            .as_u64()
            .map(Ttl::Millis)
            .ok_or_else(|| invalid("ttlMs must be a whole number of milliseconds ≥ 0, or null.")),
    }
}

fn subscribe_request(
    state: &AppState,
    params: &Map<String, Value>,
) -> Result<SubscribeRequest, RpcError> {
    event_name(params)?;
    let arguments = ReplyArguments::parse(params.get("arguments")).map_err(invalid)?;
    let delivery = delivery(params)?;
    let url = callback_url(state, delivery)?;
    let secret = delivery
        .get("secret")
        .and_then(Value::as_str)
        .and_then(WebhookSecret::parse)
        .ok_or_else(|| {
            invalid(
                "delivery.secret must be whsec_ followed by the base64 of 24 to 64 random bytes.",
            )
        })?;
    match params.get("cursor") {
        None | Some(Value::Null) | Some(Value::String(_)) => {}
        Some(_) => return Err(invalid("cursor must be a string or null.")),
    }
    Ok(SubscribeRequest {
        arguments,
        url,
        secret,
        ttl: ttl(params)?,
    })
}

fn event_error(e: EventError) -> RpcError {
    match e {
        EventError::Url(u) => invalid(u.to_string()),
        EventError::Exhausted { limit, max } => {
            RpcError::new(RESOURCE_EXHAUSTED, "Resource exhausted")
                .with_data(json!({"limit": limit, "max": max}))
        }
        EventError::Endpoint(reason) => {
            RpcError::new(CALLBACK_ENDPOINT_ERROR, "Callback endpoint error")
                .with_data(json!({"reason": reason}))
        }
        EventError::NotFound => not_found("subscription"),
        EventError::Internal(detail) => {
            tracing::error!(error = %detail, "events method failed");
            RpcError::new(INTERNAL_ERROR, "Internal error")
        }
    }
}

/// The calling credential as a subscriber. The status check authenticated it already; this
/// only names it (and charges nothing).
async fn caller(state: &AppState, headers: &HeaderMap) -> Result<Subscriber, RpcError> {
    let auth = authenticate_agent(state, headers)
        .await
        .map_err(|_| RpcError::new(FORBIDDEN, "Forbidden"))?;
    Ok(events::subscriber(&auth.account, &auth.credential))
}

async fn result(
    state: &AppState,
    headers: &HeaderMap,
    method: EventsMethod,
    params: Option<&Map<String, Value>>,
) -> Result<Value, RpcError> {
    let empty = Map::new();
    let params = params.unwrap_or(&empty);
    match method {
        EventsMethod::List => Ok(json!({ "events": [catalog::descriptor()] })),
        EventsMethod::Subscribe => {
            let who = caller(state, headers).await?;
            let request = subscribe_request(state, params)?;
            let done = state
                .subscribe_reply(who, request)
                .await
                .map_err(event_error)?;
            let mut answer = json!({
                "id": done.id,
                "refreshBefore": format_time(done.refresh_before),
                "cursor": null,
                "truncated": false,
            });
            if done.refreshed {
                answer["deliveryStatus"] = json!({
                    "active": true,
                    "lastDeliveryAt": done.last_delivery_at.map(format_time),
                    "lastError": done.last_error,
                });
            }
            Ok(answer)
        }
        EventsMethod::Unsubscribe => {
            let who = caller(state, headers).await?;
            event_name(params)?;
            let arguments = ReplyArguments::parse(params.get("arguments")).map_err(invalid)?;
            let url = callback_url(state, delivery(params)?)?;
            state
                .unsubscribe_reply(who, &url, &arguments)
                .await
                .map_err(event_error)?;
            Ok(json!({}))
        }
    }
}

/// Answers one events method for a stateless client.
pub async fn answer(
    state: &AppState,
    headers: &HeaderMap,
    id: &RequestId,
    method: EventsMethod,
    params: Option<&Map<String, Value>>,
) -> Reply {
    match result(state, headers, method, params).await {
        Ok(value) => dispatch::success(ClientKind::Stateless, id, value),
        Err(error) => dispatch::failure(Some(ClientKind::Stateless), id, &error),
    }
}
