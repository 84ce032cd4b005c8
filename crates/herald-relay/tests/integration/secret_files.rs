//! Secret-file answers on a real relay (docs/secrets.md, "Secret-file fields"): an upload
//! named in `secretAttachments` is downloadable by the asking connection only — the
//! answering device, the account's devices, other connections and other accounts get 404 —
//! and the sweeper deletes it 15 minutes after the answer (relay clock moved by the test).
//! Envelopes are placeholders: the relay never decrypts; herald-client tests the crypto.

use crate::common;

use chrono::TimeDelta;
use common::*;
use herald_protocol::envelope::{b64_encode, EnvelopeHeader, EnvelopeKind};
use herald_protocol::files::FileReservation;
use herald_protocol::wire::AnswerRequest;
use herald_protocol::{ErrorCode, FileId, MessageId};
use herald_testkit::fixtures::{self, TestAccount, TestConnection};
use herald_testkit::{Reply, TestRelay};
use serde_json::json;

const BYTES: &[u8] = b"age-encryption.org/v1 ... a kubeconfig, encrypted";

struct World {
    relay: TestRelay,
    a: TestAccount,
    conn: TestConnection,
    other: TestConnection,
    b: TestAccount,
}

async fn world() -> World {
    let relay = TestRelay::start_with_manual_clock().await;
    let a = fixtures::create_account(&relay.url).await;
    let b = fixtures::create_account(&relay.url).await;
    let conn = fixtures::create_connection(&relay.url, &a, "Asking agent").await;
    let other = fixtures::create_connection(&relay.url, &a, "Other agent").await;
    World {
        relay,
        a,
        conn,
        other,
        b,
    }
}

impl World {
    /// A request from the asking connection.
    async fn request(&self) -> MessageId {
        let req = fixtures::message_request(&self.a.account_id, self.conn.principal(), true);
        send(&self.relay.url, &self.conn.bearer, &req).await.id
    }

    /// Reserves and uploads `BYTES` with `bearer`.
    async fn upload(&self, bearer: &str) -> FileId {
        let uploader = self.relay.api().bearer(bearer);
        let body =
            json!({"name": "encrypted", "type": "application/octet-stream", "size": BYTES.len()});
        let id = uploader
            .post("/files", &body)
            .await
            .ok::<FileReservation>(201, "set-up: reserve")
            .id;
        uploader
            .put_bytes(&format!("/files/{id}"), BYTES.to_vec())
            .await
            .expect_status(200, "set-up: upload");
        id
    }

    /// The device's answer to `id`, with a secret envelope (sealed to the connection only)
    /// when `secret`, and the given file lists.
    fn answer_body(
        &self,
        id: &MessageId,
        secret: bool,
        files: &[FileId],
        secret_files: &[FileId],
    ) -> AnswerRequest {
        let mut body = fixtures::answer_request(&self.a, id);
        if secret {
            let mut env = fixtures::placeholder_envelope(
                EnvelopeKind::SecretAnswer,
                &self.a.account_id,
                id,
                self.a.device(),
                b"sealed attachment key",
            );
            let mut header: EnvelopeHeader = env.header_unverified().expect("header");
            header.recipients = vec!["k_connection".into()];
            env.header = b64_encode(&serde_json::to_vec(&header).expect("header JSON"));
            env.recipients[0].key_id = "k_connection".into();
            body.secret_envelope = Some(env);
        }
        body.attachments = files.to_vec();
        body.secret_attachments = secret_files.to_vec();
        body
    }

    /// The device answers `id` with `body`; the reply unchecked.
    async fn answer(&self, id: &MessageId, body: &AnswerRequest) -> Reply {
        self.relay
            .api()
            .device(&self.a)
            .post(&format!("/messages/{id}/answer"), body)
            .await
    }

    /// `GET /files/{id}` as `bearer`; the reply unchecked.
    async fn download(&self, bearer: &str, id: &FileId) -> Reply {
        self.relay
            .api()
            .bearer(bearer)
            .get(&format!("/files/{id}"))
            .await
    }

    /// A request answered with one secret file; returns (request, file).
    async fn answered_with_secret_file(&self) -> (MessageId, FileId) {
        let id = self.request().await;
        let file = self.upload(&self.a.device_token).await;
        self.answer(
            &id,
            &self.answer_body(&id, true, &[], std::slice::from_ref(&file)),
        )
        .await
        .expect_status(200, "answered");
        (id, file)
    }
}

#[tokio::test]
async fn only_the_asking_connection_can_download_a_secret_file() {
    let w = world().await;
    let (_, file) = w.answered_with_secret_file().await;

    let reply = w.download(&w.conn.bearer, &file).await;
    reply.expect_status(200, "the asking connection downloads it");
    assert_eq!(reply.bytes(), BYTES, "the uploaded bytes");
    w.download(&w.conn.bearer, &file)
        .await
        .expect_status(200, "again, within 15 minutes");

    for (who, bearer) in [
        ("the answering device (its uploader)", &w.a.device_token),
        ("another connection of the account", &w.other.bearer),
        ("another account's device", &w.b.device_token),
    ] {
        w.download(bearer, &file)
            .await
            .error(ErrorCode::NotFound, who);
    }
    w.relay.shutdown().await;
}

#[tokio::test]
async fn a_secret_file_is_deleted_15_minutes_after_the_answer() {
    let mut w = world().await;
    // Only this test's explicit sweep calls may delete (their counts are asserted).
    w.relay.stop_sweeper().await;
    let (_, file) = w.answered_with_secret_file().await;
    let blob = w.relay.dir.path().join("files").join(file.as_str());
    assert!(blob.exists(), "the bytes are on disk");

    w.relay
        .clock()
        .advance(TimeDelta::minutes(15) - TimeDelta::milliseconds(1));
    w.relay.state.sweep_secrets().await.expect("sweep");
    w.download(&w.conn.bearer, &file)
        .await
        .expect_status(200, "just before 15 minutes it is still there");

    w.relay.clock().advance(TimeDelta::milliseconds(1));
    w.download(&w.conn.bearer, &file).await.error(
        ErrorCode::FileExpired,
        "at 15 minutes it is refused even before the sweep",
    );
    assert!(
        w.relay.state.sweep_secrets().await.expect("sweep") >= 1,
        "the sweeper deletes it"
    );
    assert!(!blob.exists(), "its bytes are removed from disk");
    w.download(&w.conn.bearer, &file).await.error(
        ErrorCode::FileExpired,
        "the asking connection learns it expired, not a bare 404",
    );
    w.download(&w.a.device_token, &file)
        .await
        .error(ErrorCode::NotFound, "devices still cannot even see it");
    w.relay.shutdown().await;
}

#[tokio::test]
async fn secret_attachments_are_checked_and_refusals_attach_nothing() {
    let w = world().await;
    let id = w.request().await;
    let mine = w.upload(&w.a.device_token).await;
    let agents = w.upload(&w.conn.bearer).await;

    let body = w.answer_body(&id, false, &[], std::slice::from_ref(&mine));
    let err = w.answer(&id, &body).await.error(
        ErrorCode::InvalidRequest,
        "secret attachments need a secret envelope",
    );
    assert_eq!(err.fields, ["secretAttachments"], "names the list");

    let body = w.answer_body(&id, true, &[], &[agents]);
    let err = w.answer(&id, &body).await.error(
        ErrorCode::InvalidRequest,
        "only the answering device's own uploads",
    );
    assert_eq!(err.fields, ["secretAttachments[0]"], "names the file");

    let body = w.answer_body(
        &id,
        true,
        std::slice::from_ref(&mine),
        std::slice::from_ref(&mine),
    );
    let err = w.answer(&id, &body).await.error(
        ErrorCode::InvalidRequest,
        "a file is secret or not, not both",
    );
    assert_eq!(err.fields, ["secretAttachments[0]"], "names the file");

    let many: Vec<FileId> = (0..11).map(|_| mine.clone()).collect();
    let err = w
        .answer(&id, &w.answer_body(&id, true, &[], &many))
        .await
        .error(ErrorCode::InvalidRequest, "at most 10");
    assert_eq!(err.fields, ["secretAttachments"], "names the list");

    // None of that attached anything: the same upload still answers the request.
    let ordinary = w.upload(&w.a.device_token).await;
    let body = w.answer_body(
        &id,
        true,
        std::slice::from_ref(&ordinary),
        std::slice::from_ref(&mine),
    );
    w.answer(&id, &body)
        .await
        .expect_status(200, "files and secret files together");
    w.download(&w.a.device_token, &ordinary)
        .await
        .expect_status(
            200,
            "an ordinary attachment of the answer stays readable by the devices",
        );
    w.download(&w.conn.bearer, &ordinary)
        .await
        .expect_status(200, "and by the asking connection");
    w.download(&w.a.device_token, &mine).await.error(
        ErrorCode::NotFound,
        "while the secret one is the asking connection's only",
    );
    w.relay.shutdown().await;
}
