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
use herald_testkit::TestRelay;
use reqwest::{Method, Response};
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
        let url = &self.relay.url;
        let body =
            json!({"name": "encrypted", "type": "application/octet-stream", "size": BYTES.len()});
        let resp = call(url, Method::POST, "/files", Some(bearer), Some(body)).await;
        assert_eq!(resp.status().as_u16(), 201, "set-up: reserve");
        let id = resp
            .json::<FileReservation>()
            .await
            .expect("reservation")
            .id;
        let put = client()
            .put(format!("{url}/files/{id}"))
            .bearer_auth(bearer)
            .body(BYTES.to_vec())
            .send()
            .await
            .expect("the relay answers");
        assert_eq!(put.status().as_u16(), 200, "set-up: upload");
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

    async fn answer(&self, id: &MessageId, body: &AnswerRequest) -> Response {
        call(
            &self.relay.url,
            Method::POST,
            &format!("/messages/{id}/answer"),
            Some(&self.a.device_token),
            Some(serde_json::to_value(body).expect("answer JSON")),
        )
        .await
    }

    async fn download(&self, bearer: &str, id: &FileId) -> Response {
        call(
            &self.relay.url,
            Method::GET,
            &format!("/files/{id}"),
            Some(bearer),
            None,
        )
        .await
    }

    /// A request answered with one secret file; returns (request, file).
    async fn answered_with_secret_file(&self) -> (MessageId, FileId) {
        let id = self.request().await;
        let file = self.upload(&self.a.device_token).await;
        let resp = self
            .answer(
                &id,
                &self.answer_body(&id, true, &[], std::slice::from_ref(&file)),
            )
            .await;
        let status = resp.status().as_u16();
        assert_eq!(status, 200, "answered: {}", resp.text().await.unwrap());
        (id, file)
    }
}

#[tokio::test]
async fn only_the_asking_connection_can_download_a_secret_file() {
    let w = world().await;
    let (_, file) = w.answered_with_secret_file().await;

    let resp = w.download(&w.conn.bearer, &file).await;
    assert_eq!(
        resp.status().as_u16(),
        200,
        "the asking connection downloads it"
    );
    assert_eq!(
        resp.bytes().await.unwrap().as_ref(),
        BYTES,
        "the uploaded bytes"
    );
    let again = w.download(&w.conn.bearer, &file).await;
    assert_eq!(again.status().as_u16(), 200, "again, within 15 minutes");

    for (who, bearer) in [
        ("the answering device (its uploader)", &w.a.device_token),
        ("another connection of the account", &w.other.bearer),
        ("another account's device", &w.b.device_token),
    ] {
        expect_error(w.download(bearer, &file).await, ErrorCode::NotFound, who).await;
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
    assert_eq!(
        w.download(&w.conn.bearer, &file).await.status().as_u16(),
        200,
        "just before 15 minutes it is still there"
    );

    w.relay.clock().advance(TimeDelta::milliseconds(1));
    expect_error(
        w.download(&w.conn.bearer, &file).await,
        ErrorCode::FileExpired,
        "at 15 minutes it is refused even before the sweep",
    )
    .await;
    assert!(
        w.relay.state.sweep_secrets().await.expect("sweep") >= 1,
        "the sweeper deletes it"
    );
    assert!(!blob.exists(), "its bytes are removed from disk");
    expect_error(
        w.download(&w.conn.bearer, &file).await,
        ErrorCode::FileExpired,
        "the asking connection learns it expired, not a bare 404",
    )
    .await;
    expect_error(
        w.download(&w.a.device_token, &file).await,
        ErrorCode::NotFound,
        "devices still cannot even see it",
    )
    .await;
    w.relay.shutdown().await;
}

#[tokio::test]
async fn secret_attachments_are_checked_and_refusals_attach_nothing() {
    let w = world().await;
    let id = w.request().await;
    let mine = w.upload(&w.a.device_token).await;
    let agents = w.upload(&w.conn.bearer).await;

    let body = w.answer_body(&id, false, &[], std::slice::from_ref(&mine));
    let err = expect_error(
        w.answer(&id, &body).await,
        ErrorCode::InvalidRequest,
        "secret attachments need a secret envelope",
    )
    .await;
    assert_eq!(err.fields, ["secretAttachments"], "names the list");

    let body = w.answer_body(&id, true, &[], &[agents]);
    let err = expect_error(
        w.answer(&id, &body).await,
        ErrorCode::InvalidRequest,
        "only the answering device's own uploads",
    )
    .await;
    assert_eq!(err.fields, ["secretAttachments[0]"], "names the file");

    let body = w.answer_body(
        &id,
        true,
        std::slice::from_ref(&mine),
        std::slice::from_ref(&mine),
    );
    let err = expect_error(
        w.answer(&id, &body).await,
        ErrorCode::InvalidRequest,
        "a file is secret or not, not both",
    )
    .await;
    assert_eq!(err.fields, ["secretAttachments[0]"], "names the file");

    let many: Vec<FileId> = (0..11).map(|_| mine.clone()).collect();
    let err = expect_error(
        w.answer(&id, &w.answer_body(&id, true, &[], &many)).await,
        ErrorCode::InvalidRequest,
        "at most 10",
    )
    .await;
    assert_eq!(err.fields, ["secretAttachments"], "names the list");

    // None of that attached anything: the same upload still answers the request.
    let ordinary = w.upload(&w.a.device_token).await;
    let body = w.answer_body(
        &id,
        true,
        std::slice::from_ref(&ordinary),
        std::slice::from_ref(&mine),
    );
    let resp = w.answer(&id, &body).await;
    assert_eq!(
        resp.status().as_u16(),
        200,
        "files and secret files together"
    );
    assert_eq!(
        w.download(&w.a.device_token, &ordinary)
            .await
            .status()
            .as_u16(),
        200,
        "an ordinary attachment of the answer stays readable by the devices"
    );
    assert_eq!(
        w.download(&w.conn.bearer, &ordinary)
            .await
            .status()
            .as_u16(),
        200,
        "and by the asking connection"
    );
    expect_error(
        w.download(&w.a.device_token, &mine).await,
        ErrorCode::NotFound,
        "while the secret one is the asking connection's only",
    )
    .await;
    w.relay.shutdown().await;
}
