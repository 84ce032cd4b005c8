//! What the relay keeps on disk. The relay stores what it is given: an envelope whose
//! ciphertext is opaque bytes. This test keeps a distinctive title only on the client side and
//! checks that neither it nor the bearer tokens appear in the SQLite files, while the
//! ciphertext it was given does (so the search itself works). A real-crypto version, sealing
//! an actual title with herald-crypto, belongs beside it.

use crate::common;

use common::*;
use herald_protocol::envelope::{b64_encode, EnvelopeKind};
use herald_protocol::Revision;
use herald_testkit::fixtures;
use herald_testkit::TestRelay;

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// The bytes of the database and its WAL.
fn db_bytes(relay: &TestRelay) -> Vec<u8> {
    let mut bytes = std::fs::read(relay.db_path()).expect("relay.db exists");
    let wal = relay.db_path().with_extension("db-wal");
    if let Ok(more) = std::fs::read(wal) {
        bytes.extend(more);
    }
    bytes
}

#[tokio::test]
async fn the_database_holds_no_plaintext_title_or_tokens() {
    let relay = TestRelay::start().await;
    let account = fixtures::create_account(&relay.url).await;
    let conn = fixtures::create_connection(&relay.url, &account, "Agent").await;

    // Client side only: the title the person would see.
    let title = "Quarterly-payroll-approval-7f3a9c";
    let ciphertext: [u8; 96] = fixtures::random_bytes();
    let mut req = fixtures::message_request(&account.account_id, conn.principal(), true);
    req.envelope = fixtures::placeholder_envelope(
        EnvelopeKind::Message,
        &account.account_id,
        &req.id,
        conn.principal(),
        &ciphertext,
    );
    send(&relay.url, &conn.bearer, &req).await;

    let bytes = db_bytes(&relay);
    assert!(
        contains(&bytes, b64_encode(&ciphertext).as_bytes()),
        "the relay stored the ciphertext it was given (the search sees the files)"
    );
    assert!(
        !contains(&bytes, title.as_bytes()),
        "no plaintext title in the database"
    );
    assert!(
        !contains(&bytes, account.device_token.as_bytes()),
        "device tokens are stored only as hashes"
    );
    assert!(
        !contains(&bytes, conn.bearer.as_bytes()),
        "connection bearers are stored only as hashes"
    );
    relay.shutdown().await;
}

#[tokio::test]
async fn data_survives_a_restart() {
    let relay = TestRelay::start().await;
    let account = fixtures::create_account(&relay.url).await;
    let sent = send_from_device(&relay.url, &account, true).await;
    let relay = relay.restart().await;
    let page = feed(&relay.url, &account.device_token, Revision(0), None).await;
    assert_eq!(
        page.records.len(),
        1,
        "the acknowledged message survived the restart"
    );
    assert_eq!(page.records[0].id, sent.id, "the same message");
    assert_eq!(
        page.records[0].revision, sent.revision,
        "with the same revision"
    );
    let next = send_from_device(&relay.url, &account, false).await;
    assert!(
        next.revision > sent.revision,
        "the revision counter continues after a restart"
    );
    relay.shutdown().await;
}
