//! `/files` against a real relay: reserve, upload exactly once, attach to a message or an
//! answer, download by whoever may read the message; every refusal with its own code; the
//! sweeper deleting what was never attached (relay clock moved by the test).

use crate::common;

use chrono::TimeDelta;
use common::*;
use herald_protocol::files::{FileReservation, MAX_FILE_BYTES};
use herald_protocol::wire::SendMessageRequest;
use herald_protocol::{ErrorCode, FileId};
use herald_relay::Clock;
use herald_testkit::fixtures::{self, TestAccount, TestConnection};
use herald_testkit::{Api, Reply, TestRelay};
use serde_json::json;

/// `POST /files` with `body` as `bearer`; the reply unchecked.
async fn reserve_raw(url: &str, bearer: &str, body: serde_json::Value) -> Reply {
    Api::new(url).bearer(bearer).post("/files", &body).await
}

/// Reserves `size` bytes and returns the reservation.
async fn reserve(url: &str, bearer: &str, size: u64) -> FileReservation {
    reserve_raw(
        url,
        bearer,
        json!({"name": "encrypted", "type": "application/octet-stream", "size": size}),
    )
    .await
    .ok(201, "a reservation is created")
}

/// `PUT /files/{id}` with `bytes` (with Content-Length); the reply unchecked.
async fn put(url: &str, bearer: &str, id: &FileId, bytes: Vec<u8>) -> Reply {
    Api::new(url)
        .bearer(bearer)
        .put_bytes(&format!("/files/{id}"), bytes)
        .await
}

/// A PUT without Content-Length (chunked), so the relay must count.
async fn put_chunked(url: &str, bearer: &str, id: &FileId, chunks: Vec<Vec<u8>>) -> Reply {
    let stream =
        futures_util::stream::iter(chunks.into_iter().map(Ok::<_, std::convert::Infallible>));
    Api::new(url)
        .bearer(bearer)
        .put_bytes(&format!("/files/{id}"), reqwest::Body::wrap_stream(stream))
        .await
}

/// `GET /files/{id}` as `bearer`; the reply unchecked.
async fn get(url: &str, bearer: &str, id: &FileId) -> Reply {
    Api::new(url)
        .bearer(bearer)
        .get(&format!("/files/{id}"))
        .await
}

/// Reserves and uploads `bytes`; returns the file id.
async fn upload(url: &str, bearer: &str, bytes: &[u8]) -> FileId {
    let r = reserve(url, bearer, bytes.len() as u64).await;
    put(url, bearer, &r.id, bytes.to_vec())
        .await
        .expect_status(200, "the upload completes");
    r.id
}

fn with_files(mut req: SendMessageRequest, files: &[FileId]) -> SendMessageRequest {
    req.attachments = files.to_vec();
    req
}

/// `POST /messages` with a fresh Idempotency-Key; the reply unchecked.
async fn post(url: &str, bearer: &str, req: &SendMessageRequest) -> Reply {
    Api::new(url)
        .bearer(bearer)
        .post_message(&fixtures::new_idempotency_key(), req)
        .await
}

struct World {
    relay: TestRelay,
    a: TestAccount,
    conn: TestConnection,
    other_conn: TestConnection,
    b: TestAccount,
}

async fn world() -> World {
    let relay = TestRelay::start_with_manual_clock().await;
    let a = fixtures::create_account(&relay.url).await;
    let b = fixtures::create_account(&relay.url).await;
    let conn = fixtures::create_connection(&relay.url, &a, "Agent").await;
    let other_conn = fixtures::create_connection(&relay.url, &a, "Other agent").await;
    World {
        relay,
        a,
        conn,
        other_conn,
        b,
    }
}

fn bytes(n: usize) -> Vec<u8> {
    (0..n).map(|i| (i % 251) as u8).collect()
}

#[tokio::test]
async fn reserve_upload_attach_download() {
    let w = world().await;
    let url = &w.relay.url;
    let data = bytes(300_000);
    let now = w.relay.clock().now();
    let r = reserve(url, &w.conn.bearer, data.len() as u64).await;
    assert!(r.id.as_str().starts_with("fil_"), "a file id");
    assert_eq!(r.size, data.len() as u64, "the reserved size");
    assert_eq!(
        r.expires_at,
        herald_relay::clock::format_time(now + TimeDelta::minutes(15)),
        "valid for 15 minutes by the relay's clock"
    );
    let done: FileReservation = put(url, &w.conn.bearer, &r.id, data.clone())
        .await
        .ok(200, "upload accepted");
    assert_eq!(done.id, r.id, "same file");

    let stored = w.relay.dir.path().join("files");
    let names: Vec<String> = std::fs::read_dir(&stored)
        .expect("files dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        [r.id.to_string()],
        "one file, no temporary leftovers"
    );

    let req = with_files(
        fixtures::message_request(&w.a.account_id, w.conn.principal(), false),
        std::slice::from_ref(&r.id),
    );
    post(url, &w.conn.bearer, &req)
        .await
        .expect_status(201, "the message carries the file");

    for (who, bearer) in [
        ("the sender", &w.conn.bearer),
        ("a device", &w.a.device_token),
    ] {
        let reply = get(url, bearer, &r.id).await;
        reply.expect_status(200, &format!("{who} downloads"));
        assert_eq!(
            reply.header("content-length"),
            Some("300000"),
            "{who}: Content-Length"
        );
        assert!(reply.bytes() == &data[..], "{who}: the same bytes");
    }
    for (who, bearer) in [
        ("another connection", &w.other_conn.bearer),
        ("another account's device", &w.b.device_token),
    ] {
        get(url, bearer, &r.id)
            .await
            .error(ErrorCode::NotFound, who);
    }
    // Time passes; an attached file lives as long as its message.
    w.relay.clock().advance(TimeDelta::hours(2));
    w.relay.state.sweep_files().await.expect("sweep");
    get(url, &w.a.device_token, &r.id)
        .await
        .expect_status(200, "attached files are not swept");

    // Revoking the connection: its bearer is refused at once.
    w.relay
        .api()
        .device(&w.a)
        .delete(&format!("/connections/{}", w.conn.connection_id))
        .await
        .expect_status(204, "revoked");
    get(url, &w.conn.bearer, &r.id)
        .await
        .error(ErrorCode::Unauthorized, "a revoked connection");
}

#[tokio::test]
async fn reservations_must_be_exact() {
    let w = world().await;
    let (url, bearer) = (&w.relay.url, &w.conn.bearer);
    let body = |name: &str, ty: &str, size: serde_json::Value| json!({"name": name, "type": ty, "size": size});
    let cases = [
        (
            "real name",
            body("report.pdf", "application/octet-stream", json!(5)),
            ErrorCode::InvalidRequest,
            "name",
        ),
        (
            "real type",
            body("encrypted", "application/pdf", json!(5)),
            ErrorCode::InvalidRequest,
            "type",
        ),
        (
            "empty",
            body("encrypted", "application/octet-stream", json!(0)),
            ErrorCode::InvalidRequest,
            "size",
        ),
        (
            "over 100 MiB",
            body(
                "encrypted",
                "application/octet-stream",
                json!(MAX_FILE_BYTES + 1),
            ),
            ErrorCode::PayloadTooLarge,
            "size",
        ),
    ];
    for (what, req, code, field) in cases {
        let err = reserve_raw(url, bearer, req).await.error(code, what);
        assert_eq!(err.fields, [field], "{what}: names {field}");
    }
    let err = reserve_raw(
        url,
        bearer,
        json!({"name": "encrypted", "type": "application/octet-stream", "size": 5, "sha256": "x"}),
    )
    .await
    .error(ErrorCode::BadRequest, "unknown keys");
    assert!(
        err.message.contains("sha256"),
        "names the key: {}",
        err.message
    );
    let max = reserve(url, bearer, MAX_FILE_BYTES).await;
    assert_eq!(max.size, MAX_FILE_BYTES, "exactly 100 MiB may be reserved");
    w.relay
        .api()
        .post(
            "/files",
            &body("encrypted", "application/octet-stream", json!(5)),
        )
        .await
        .error(ErrorCode::Unauthorized, "no credential");
}

#[tokio::test]
async fn uploads_take_exactly_the_size_once_in_time() {
    let w = world().await;
    let (url, bearer) = (&w.relay.url, &w.conn.bearer);
    let r = reserve(url, bearer, 1000).await;
    put(url, bearer, &r.id, bytes(999))
        .await
        .error(ErrorCode::FileTooShort, "one byte short");
    put(url, bearer, &r.id, bytes(1001))
        .await
        .error(ErrorCode::FileTooLong, "one byte long");
    put_chunked(url, bearer, &r.id, vec![bytes(600), bytes(399)])
        .await
        .error(ErrorCode::FileTooShort, "short without Content-Length");
    put_chunked(url, bearer, &r.id, vec![bytes(600), bytes(401)])
        .await
        .error(ErrorCode::FileTooLong, "long without Content-Length");
    put(url, &w.other_conn.bearer, &r.id, bytes(1000))
        .await
        .error(ErrorCode::NotFound, "someone else's reservation");
    put_chunked(url, bearer, &r.id, vec![bytes(500), bytes(500)])
        .await
        .expect_status(200, "failed tries leave the reservation open");
    put(url, bearer, &r.id, bytes(1000))
        .await
        .error(ErrorCode::FileAlreadyUploaded, "a second upload");

    let late = reserve(url, bearer, 10).await;
    w.relay.clock().advance(TimeDelta::minutes(15));
    put(url, bearer, &late.id, bytes(10))
        .await
        .error(ErrorCode::FileReservationExpired, "at the deadline");
    w.relay.state.sweep_files().await.expect("sweep");
    put(url, bearer, &late.id, bytes(10)).await.error(
        ErrorCode::FileReservationExpired,
        "after the sweeper deleted it",
    );
    put(url, bearer, &r.id, bytes(1000)).await.error(
        ErrorCode::FileAlreadyUploaded,
        "an uploaded, swept file is still 'already uploaded'",
    );
}

#[tokio::test]
async fn attaching_needs_a_fresh_completed_upload_of_the_sender() {
    let mut w = world().await;
    // Only this test's explicit sweep calls may delete (their counts are asserted).
    w.relay.stop_sweeper().await;
    let url = &w.relay.url;
    let msg = |files: &[FileId]| {
        with_files(
            fixtures::message_request(&w.a.account_id, w.conn.principal(), false),
            files,
        )
    };
    let reserved = reserve(url, &w.conn.bearer, 10).await.id;
    let foreign = upload(url, &w.other_conn.bearer, b"0123456789").await;
    let mine = upload(url, &w.conn.bearer, b"0123456789").await;
    for (what, files, code) in [
        (
            "not uploaded yet",
            vec![reserved.clone()],
            ErrorCode::InvalidRequest,
        ),
        (
            "another connection's upload",
            vec![foreign.clone()],
            ErrorCode::InvalidRequest,
        ),
        (
            "unknown",
            vec![FileId::from_random(&[9; 16])],
            ErrorCode::InvalidRequest,
        ),
    ] {
        let err = post(url, &w.conn.bearer, &msg(&files))
            .await
            .error(code, what);
        assert_eq!(
            err.fields,
            ["attachments[0]"],
            "{what}: names the attachment"
        );
    }
    let err = post(url, &w.conn.bearer, &msg(&[mine.clone(), mine.clone()]))
        .await
        .error(ErrorCode::InvalidRequest, "the same file twice");
    assert_eq!(err.fields, ["attachments[1]"], "names the duplicate");
    let eleven: Vec<FileId> = (0..11).map(|i| FileId::from_random(&[i; 16])).collect();
    let err = post(url, &w.conn.bearer, &msg(&eleven))
        .await
        .error(ErrorCode::InvalidRequest, "eleven files");
    assert_eq!(err.fields, ["attachments"], "names the list");

    post(url, &w.conn.bearer, &msg(std::slice::from_ref(&mine)))
        .await
        .expect_status(201, "attached");
    post(url, &w.conn.bearer, &msg(std::slice::from_ref(&mine)))
        .await
        .error(ErrorCode::FileAlreadyAttached, "a second message");

    // A refused send attaches nothing: the file stays attachable.
    let spare = upload(url, &w.conn.bearer, b"abc").await;
    post(
        url,
        &w.conn.bearer,
        &msg(&[spare.clone(), reserved.clone()]),
    )
    .await
    .error(
        ErrorCode::InvalidRequest,
        "one bad file refuses the whole message",
    );
    post(url, &w.conn.bearer, &msg(&[spare]))
        .await
        .expect_status(201, "the good file was not taken");

    // An upload nobody attaches within 15 minutes is deleted.
    let unattached = upload(url, &w.conn.bearer, b"late").await;
    get(url, &w.conn.bearer, &unattached)
        .await
        .expect_status(200, "the uploader reads its own upload");
    get(url, &w.a.device_token, &unattached).await.error(
        ErrorCode::NotFound,
        "devices see files through messages only",
    );
    w.relay.clock().advance(TimeDelta::minutes(15));
    post(url, &w.conn.bearer, &msg(std::slice::from_ref(&unattached)))
        .await
        .error(ErrorCode::FileExpired, "attaching too late");
    get(url, &w.conn.bearer, &unattached)
        .await
        .error(ErrorCode::FileExpired, "before the sweep");
    assert!(
        w.relay.state.sweep_files().await.expect("sweep") >= 1,
        "the sweeper deletes it"
    );
    get(url, &w.conn.bearer, &unattached).await.error(
        ErrorCode::FileExpired,
        "after the sweep: expired, not a bare 404",
    );
    assert!(
        !w.relay
            .dir
            .path()
            .join("files")
            .join(unattached.as_str())
            .exists(),
        "its bytes are gone"
    );
}

#[tokio::test]
async fn answers_carry_files_to_the_asking_connection() {
    let w = world().await;
    let url = &w.relay.url;
    let request = send(
        url,
        &w.conn.bearer,
        &fixtures::message_request(&w.a.account_id, w.conn.principal(), true),
    )
    .await;
    let file = upload(url, &w.a.device_token, b"the device's upload").await;
    let mut answer = fixtures::answer_request(&w.a, &request.id);
    answer.attachments = vec![file.clone()];
    w.relay
        .api()
        .device(&w.a)
        .post(&format!("/messages/{}/answer", request.id), &answer)
        .await
        .expect_status(200, "answered with a file");
    let reply = get(url, &w.conn.bearer, &file).await;
    reply.expect_status(200, "the asking connection downloads");
    assert_eq!(reply.bytes(), b"the device's upload", "same bytes");
    get(url, &w.other_conn.bearer, &file)
        .await
        .error(ErrorCode::NotFound, "another connection");
}
