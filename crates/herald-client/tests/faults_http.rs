//! Fault test (docs/faults.md, "Relay faults"): a pooled HTTP connection to the relay dies
//! silently (no FIN, no RST: the network changed under it). The next request on it must not
//! hang for the 120 s request timeout: it fails after the read timeout (20 s) and, being safe
//! to repeat (a GET; or a POST with an Idempotency-Key), is sent again on a fresh connection
//! and succeeds. A real relay (herald-testkit) behind the fault proxy, real HTTP.

mod fault_proxy;

use std::time::Duration;

use fault_proxy::FaultProxy;
use herald_client::http::{RelayHttp, READ_TIMEOUT, REQUEST_TIMEOUT};
use herald_protocol::Revision;
use herald_testkit::{fixtures, TestRelay};

/// Bound for the request after the freeze: past the read timeout (with room for a loaded
/// machine), well short of the request timeout it used to wait for.
const BOUND: Duration = Duration::from_secs(75);

#[tokio::test]
async fn a_silently_dead_pooled_connection_is_given_up_and_the_request_retried() {
    assert!(
        READ_TIMEOUT * 2 < BOUND && BOUND < REQUEST_TIMEOUT,
        "the bound tells the two apart"
    );
    let relay = TestRelay::start().await;
    let proxy = FaultProxy::start(relay.addr).await;
    let account = fixtures::create_account(&relay.url).await;
    let http = RelayHttp::new(&proxy.url())
        .unwrap()
        .with_bearer(&account.device_token);

    // One request leaves its connection in the pool.
    http.messages(Revision(0), 10)
        .await
        .expect("the first read");
    // The network changes: that connection now swallows everything, new ones work.
    proxy.freeze_open();
    let page = tokio::time::timeout(BOUND, http.messages(Revision(0), 10))
        .await
        .expect("given up after the read timeout, not the 120 s request timeout")
        .expect("retried on a fresh connection");
    assert!(page.records.is_empty(), "the same empty feed");

    // A send carrying an Idempotency-Key is retried too, and stored once.
    proxy.freeze_open();
    let req = fixtures::message_request(&account.account_id, account.device(), false);
    let key = fixtures::new_idempotency_key();
    let record = tokio::time::timeout(BOUND, http.send_message(&key, &req))
        .await
        .expect("given up after the read timeout")
        .expect("sent on a fresh connection");
    let page = http.messages(Revision(0), 10).await.expect("read back");
    assert_eq!(page.records.len(), 1, "stored once");
    assert_eq!(page.records[0].id, record.id);
    relay.shutdown().await;
}
