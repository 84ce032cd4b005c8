//! The relay's agent-side device routes (docs/agents.md) on [`RelayHttp`]: agent keys,
//! connectors (approve/deny a user code), the notification feed, receipts, replies and quiet
//! hours. All need the device session.

use herald_protocol::agents::{
    AgentKeyCreated, AgentKeyList, ApproveConnectorRequest, ConnectorInfo, ConnectorList,
    CreateAgentKeyRequest, DenyConnectorRequest,
};
use herald_protocol::notify::{
    NotificationPage, NotificationRecord, QuietHours, QuietHoursView, ReceiptUpdate, ReplyRequest,
};
use herald_protocol::{AgentKeyId, ConnectorId, NotificationId, Revision};
use reqwest::Method;

use crate::transport::http::RelayHttp;
use crate::Result;

impl RelayHttp {
    /// `POST /agent-keys`: the key is in the answer, once.
    pub async fn create_agent_key(&self, name: &str) -> Result<AgentKeyCreated> {
        let req = CreateAgentKeyRequest {
            name: name.to_owned(),
        };
        self.send(self.request(Method::POST, "/agent-keys").json(&req))
            .await
    }

    /// `GET /agent-keys`.
    pub async fn agent_keys(&self) -> Result<AgentKeyList> {
        self.send(self.request(Method::GET, "/agent-keys")).await
    }

    /// `DELETE /agent-keys/{id}`.
    pub async fn revoke_agent_key(&self, id: &AgentKeyId) -> Result<()> {
        self.send_empty(self.request(Method::DELETE, &format!("/agent-keys/{id}")))
            .await
    }

    /// `POST /connectors/approve`.
    pub async fn approve_connector(
        &self,
        user_code: &str,
        name: Option<&str>,
    ) -> Result<ConnectorInfo> {
        let req = ApproveConnectorRequest {
            user_code: user_code.to_owned(),
            name: name.map(str::to_owned),
        };
        self.send(self.request(Method::POST, "/connectors/approve").json(&req))
            .await
    }

    /// `POST /connectors/deny`.
    pub async fn deny_connector(&self, user_code: &str) -> Result<()> {
        let req = DenyConnectorRequest {
            user_code: user_code.to_owned(),
        };
        self.send_empty(self.request(Method::POST, "/connectors/deny").json(&req))
            .await
    }

    /// `GET /connectors`.
    pub async fn connectors(&self) -> Result<ConnectorList> {
        self.send(self.request(Method::GET, "/connectors")).await
    }

    /// `DELETE /connectors/{id}`.
    pub async fn revoke_connector(&self, id: &ConnectorId) -> Result<()> {
        self.send_empty(self.request(Method::DELETE, &format!("/connectors/{id}")))
            .await
    }

    /// `GET /notifications?after=&limit=`.
    pub async fn notifications(&self, after: Revision, limit: u32) -> Result<NotificationPage> {
        self.send(self.request(
            Method::GET,
            &format!("/notifications?after={after}&limit={limit}"),
        ))
        .await
    }

    /// `POST /notifications/{id}/receipt`.
    pub async fn notification_receipt(
        &self,
        id: &NotificationId,
        update: &ReceiptUpdate,
    ) -> Result<NotificationRecord> {
        self.send(
            self.request(Method::POST, &format!("/notifications/{id}/receipt"))
                .json(update),
        )
        .await
    }

    /// `POST /notifications/{id}/reply`.
    pub async fn reply_notification(
        &self,
        id: &NotificationId,
        text: &str,
    ) -> Result<NotificationRecord> {
        let req = ReplyRequest {
            text: text.to_owned(),
        };
        self.send(
            self.request(Method::POST, &format!("/notifications/{id}/reply"))
                .json(&req),
        )
        .await
    }

    /// `GET /quiet-hours`.
    pub async fn quiet_hours(&self) -> Result<QuietHoursView> {
        self.send(self.request(Method::GET, "/quiet-hours")).await
    }

    /// `PUT /quiet-hours`.
    pub async fn put_quiet_hours(&self, settings: &QuietHours) -> Result<QuietHoursView> {
        self.send(self.request(Method::PUT, "/quiet-hours").json(settings))
            .await
    }
}
