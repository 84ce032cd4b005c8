//! Rows of the authorization matrix for the file routes (docs/files.md). Included by
//! `authorization.rs`. Uploads and downloads target files of account A's connection: only
//! the uploader may upload, and only readers of the carrying message may download.

use herald_protocol::files::FileReservation;
use herald_protocol::{ErrorCode, FileId};
use herald_testkit::fixtures;
use reqwest::{Method, Response};
use serde_json::json;

use super::common::call;
use super::{Caller, Expect, World, E, S};

#[derive(Debug, Clone, Copy)]
pub enum FileRoute {
    Reserve,
    Upload,
    Download,
}

/// In the order they run.
pub const ALL: [FileRoute; 3] = [FileRoute::Reserve, FileRoute::Upload, FileRoute::Download];

/// Expected outcome per caller: nobody, device, connection, revoked connection, another
/// account's device.
pub fn expected(route: FileRoute) -> [Expect; 5] {
    use ErrorCode::{NotFound as N, Unauthorized as U};
    match route {
        FileRoute::Reserve => [E(U), S(201), S(201), E(U), S(201)],
        // The reservation is the connection's: a device of the same account may not fill it.
        FileRoute::Upload => [E(U), E(N), S(200), E(U), E(N)],
        FileRoute::Download => [E(U), S(200), S(200), E(U), E(N)],
    }
}

const BYTES: &[u8] = b"ciphertext";

impl World {
    /// A reservation of account A's connection.
    async fn connection_reservation(&self) -> FileId {
        let resp = call(
            &self.relay.url,
            Method::POST,
            "/files",
            Some(&self.conn.bearer),
            Some(json!({"name": "encrypted", "type": "application/octet-stream", "size": BYTES.len()})),
        )
        .await;
        assert_eq!(resp.status().as_u16(), 201, "set-up: reserve");
        resp.json::<FileReservation>()
            .await
            .expect("reservation")
            .id
    }

    async fn put_file(&self, id: &FileId, bearer: Option<&str>) -> Response {
        let mut req = reqwest::Client::new()
            .put(format!("{}/files/{id}", self.relay.url))
            .body(BYTES.to_vec());
        if let Some(b) = bearer {
            req = req.bearer_auth(b);
        }
        req.send().await.expect("the relay answers")
    }

    pub async fn run_file(&self, route: FileRoute, caller: Caller) -> (u16, Option<Response>) {
        let url = &self.relay.url;
        let bearer = self.bearer(caller);
        let resp = match route {
            FileRoute::Reserve => {
                let body =
                    json!({"name": "encrypted", "type": "application/octet-stream", "size": 10});
                call(url, Method::POST, "/files", bearer, Some(body)).await
            }
            FileRoute::Upload => {
                let id = self.connection_reservation().await;
                self.put_file(&id, bearer).await
            }
            FileRoute::Download => {
                let id = self.connection_reservation().await;
                let put = self.put_file(&id, Some(&self.conn.bearer)).await;
                assert_eq!(put.status().as_u16(), 200, "set-up: upload");
                let mut req =
                    fixtures::message_request(&self.a.account_id, self.conn.principal(), false);
                req.attachments = vec![id.clone()];
                let sent = super::common::send(url, &self.conn.bearer, &req).await;
                assert_eq!(sent.id, req.id, "set-up: the message carries the file");
                call(url, Method::GET, &format!("/files/{id}"), bearer, None).await
            }
        };
        (resp.status().as_u16(), Some(resp))
    }
}
