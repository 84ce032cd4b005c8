//! Rows of the authorization matrix for the agent side (docs/agents.md): the agent endpoints
//! (`/v1/*`), the OAuth routes, and the device routes for agent keys, connectors,
//! notifications and quiet hours. Included by `authorization.rs`, which also runs every
//! route of the relay with the agent callers (agent key, connector token, and revoked ones).

use herald_protocol::notify::NotificationPage;
use herald_protocol::{ErrorCode, NotificationId};
use reqwest::{Method, Response};
use serde_json::json;

use super::agent_common::{agent_key, connector_token, start_device_flow, CLIENT_ID};
use super::common::call;
use super::{Caller, Expect, World, E, S};

#[derive(Debug, Clone, Copy)]
pub enum AgentRoute {
    Notify,
    Receipt,
    Replies,
    Status,
    ProtectedResource,
    AuthorizationServer,
    DeviceAuthorization,
    Token,
    CreateAgentKey,
    ListAgentKeys,
    RevokeAgentKey,
    ListConnectors,
    ApproveConnector,
    DenyConnector,
    RevokeConnector,
    Feed,
    NotificationReceipt,
    NotificationReply,
    GetQuietHours,
    PutQuietHours,
}

/// In the order they run.
pub const ALL: [AgentRoute; 20] = [
    AgentRoute::Notify,
    AgentRoute::Receipt,
    AgentRoute::Replies,
    AgentRoute::Status,
    AgentRoute::ProtectedResource,
    AgentRoute::AuthorizationServer,
    AgentRoute::DeviceAuthorization,
    AgentRoute::Token,
    AgentRoute::CreateAgentKey,
    AgentRoute::ListAgentKeys,
    AgentRoute::RevokeAgentKey,
    AgentRoute::ListConnectors,
    AgentRoute::ApproveConnector,
    AgentRoute::DenyConnector,
    AgentRoute::RevokeConnector,
    AgentRoute::Feed,
    AgentRoute::NotificationReceipt,
    AgentRoute::NotificationReply,
    AgentRoute::GetQuietHours,
    AgentRoute::PutQuietHours,
];

/// Expected outcome per caller: nobody, device, connection, revoked connection, another
/// account's device.
pub fn expected(route: AgentRoute) -> [Expect; 5] {
    use ErrorCode::{Forbidden as F, NotFound as N, Unauthorized as U};
    match route {
        // Devices and connections may not call the agent endpoints.
        AgentRoute::Notify | AgentRoute::Receipt | AgentRoute::Replies | AgentRoute::Status => {
            [E(U), E(F), E(F), E(U), E(F)]
        }
        AgentRoute::ProtectedResource
        | AgentRoute::AuthorizationServer
        | AgentRoute::DeviceAuthorization => [S(200); 5],
        // An unknown device code, whoever asks.
        AgentRoute::Token => [S(400); 5],
        AgentRoute::CreateAgentKey => [E(U), S(201), E(F), E(U), S(201)],
        AgentRoute::ListAgentKeys | AgentRoute::ListConnectors | AgentRoute::Feed => {
            [E(U), S(200), E(F), E(U), S(200)]
        }
        AgentRoute::GetQuietHours | AgentRoute::PutQuietHours => [E(U), S(200), E(F), E(U), S(200)],
        AgentRoute::RevokeAgentKey | AgentRoute::RevokeConnector => {
            [E(U), S(204), E(F), E(U), E(N)]
        }
        // A waiting code belongs to no account until a device approves it.
        AgentRoute::ApproveConnector => [E(U), S(200), E(F), E(U), S(200)],
        AgentRoute::DenyConnector => [E(U), S(204), E(F), E(U), S(204)],
        AgentRoute::NotificationReceipt | AgentRoute::NotificationReply => {
            [E(U), S(200), E(F), E(U), E(N)]
        }
    }
}

/// Expected outcome per agent caller: agent key, connector token, revoked agent key, revoked
/// connector token (all of account A).
pub fn expected_agents(route: AgentRoute) -> [Expect; 4] {
    use ErrorCode::{Forbidden as F, Unauthorized as U};
    match route {
        AgentRoute::Notify => [S(201), S(201), E(U), E(U)],
        AgentRoute::Receipt | AgentRoute::Replies | AgentRoute::Status => {
            [S(200), S(200), E(U), E(U)]
        }
        // Public routes: no credential needed, an agent's is not refused.
        AgentRoute::ProtectedResource
        | AgentRoute::AuthorizationServer
        | AgentRoute::DeviceAuthorization => [S(200); 4],
        AgentRoute::Token => [S(400); 4],
        _ => [E(F), E(F), E(U), E(U)],
    }
}

/// The agent's id of the notification the matrix reads.
pub const NOTIFICATION: &str = "authz-1";

impl World {
    /// The relay id of account A's notification with the agent's id `notification_id`.
    pub async fn notification_of_a(&self, notification_id: &str) -> NotificationId {
        let page: NotificationPage = call(
            &self.relay.url,
            Method::GET,
            "/notifications?after=0&limit=500",
            Some(&self.a.device_token),
            None,
        )
        .await
        .json()
        .await
        .expect("set-up: feed");
        page.records
            .into_iter()
            .find(|r| r.receipt.notification_id == notification_id)
            .expect("set-up: the notification is in A's feed")
            .id
    }

    /// A fresh notification of A expecting a reply.
    async fn fresh_notification(&self) -> NotificationId {
        let id = format!(
            "authz-{}",
            herald_testkit::fixtures::new_idempotency_key().replace(['-', '_'], "x")
        );
        let resp = call(
            &self.relay.url,
            Method::POST,
            "/v1/notify",
            Some(&self.agent_key),
            Some(json!({"title": "t", "expectReply": true, "notificationId": id})),
        )
        .await;
        assert_eq!(resp.status().as_u16(), 201, "set-up: notify");
        self.notification_of_a(&id).await
    }

    pub async fn run_agent(&self, route: AgentRoute, caller: Caller) -> (u16, Option<Response>) {
        let url = &self.relay.url;
        let bearer = self.bearer(caller);
        let resp = match route {
            AgentRoute::Notify => {
                call(
                    url,
                    Method::POST,
                    "/v1/notify",
                    bearer,
                    Some(json!({"title": "t"})),
                )
                .await
            }
            AgentRoute::Receipt => {
                let path = format!("/v1/receipts/{NOTIFICATION}");
                call(url, Method::GET, &path, bearer, None).await
            }
            AgentRoute::Replies => {
                let path = format!("/v1/replies/{NOTIFICATION}?wait=0");
                call(url, Method::GET, &path, bearer, None).await
            }
            AgentRoute::Status => call(url, Method::GET, "/v1/status", bearer, None).await,
            AgentRoute::ProtectedResource => {
                let path = "/.well-known/oauth-protected-resource";
                call(url, Method::GET, path, bearer, None).await
            }
            AgentRoute::AuthorizationServer => {
                let path = "/.well-known/oauth-authorization-server";
                call(url, Method::GET, path, bearer, None).await
            }
            AgentRoute::DeviceAuthorization => {
                let mut req = reqwest::Client::new()
                    .post(format!("{url}/oauth/device_authorization"))
                    .form(&[("client_id", CLIENT_ID)]);
                if let Some(b) = bearer {
                    req = req.bearer_auth(b);
                }
                req.send().await.expect("the relay answers")
            }
            AgentRoute::Token => {
                let mut req = reqwest::Client::new()
                    .post(format!("{url}/oauth/token"))
                    .form(&[
                        (
                            "grant_type",
                            herald_protocol::agents::DEVICE_CODE_GRANT_TYPE,
                        ),
                        ("device_code", "unknown"),
                        ("client_id", CLIENT_ID),
                    ]);
                if let Some(b) = bearer {
                    req = req.bearer_auth(b);
                }
                req.send().await.expect("the relay answers")
            }
            AgentRoute::CreateAgentKey => {
                call(
                    url,
                    Method::POST,
                    "/agent-keys",
                    bearer,
                    Some(json!({"name": "k"})),
                )
                .await
            }
            AgentRoute::ListAgentKeys => call(url, Method::GET, "/agent-keys", bearer, None).await,
            AgentRoute::RevokeAgentKey => {
                let target = agent_key(url, &self.a.device_token, "Doomed").await;
                let path = format!("/agent-keys/{}", target.id);
                call(url, Method::DELETE, &path, bearer, None).await
            }
            AgentRoute::ListConnectors => call(url, Method::GET, "/connectors", bearer, None).await,
            AgentRoute::ApproveConnector | AgentRoute::DenyConnector => {
                let flow = start_device_flow(url).await;
                let path = match route {
                    AgentRoute::ApproveConnector => "/connectors/approve",
                    _ => "/connectors/deny",
                };
                call(
                    url,
                    Method::POST,
                    path,
                    bearer,
                    Some(json!({"userCode": flow.user_code})),
                )
                .await
            }
            AgentRoute::RevokeConnector => {
                connector_token(url, &self.a.device_token).await;
                let list: serde_json::Value = call(
                    url,
                    Method::GET,
                    "/connectors",
                    Some(&self.a.device_token),
                    None,
                )
                .await
                .json()
                .await
                .expect("set-up: connectors");
                let id = list["connectors"]
                    .as_array()
                    .and_then(|l| l.last())
                    .and_then(|c| c["id"].as_str())
                    .expect("set-up: a connector")
                    .to_owned();
                call(
                    url,
                    Method::DELETE,
                    &format!("/connectors/{id}"),
                    bearer,
                    None,
                )
                .await
            }
            AgentRoute::Feed => {
                call(url, Method::GET, "/notifications?after=0", bearer, None).await
            }
            AgentRoute::NotificationReceipt => {
                let path = format!("/notifications/{}/receipt", self.notification);
                call(
                    url,
                    Method::POST,
                    &path,
                    bearer,
                    Some(json!({"displayed": true})),
                )
                .await
            }
            AgentRoute::NotificationReply => {
                let id = self.fresh_notification().await;
                let path = format!("/notifications/{id}/reply");
                call(
                    url,
                    Method::POST,
                    &path,
                    bearer,
                    Some(json!({"text": "ok"})),
                )
                .await
            }
            AgentRoute::GetQuietHours => call(url, Method::GET, "/quiet-hours", bearer, None).await,
            AgentRoute::PutQuietHours => {
                let body =
                    json!({"enabled": false, "start": "22:00", "end": "07:00", "timezone": "UTC"});
                call(url, Method::PUT, "/quiet-hours", bearer, Some(body)).await
            }
        };
        (resp.status().as_u16(), Some(resp))
    }
}
