//! The shared store test suite: every [`Store`] implementation runs these cases through
//! [`crate::store_suite!`], which makes one `#[test]` per case.

use chrono::{DateTime, Duration, TimeZone, Utc};
use herald_protocol::envelope::{
    b64_encode, Certificate, Envelope, EnvelopeHeader, EnvelopeKind, SealedKey, SUITE_V1,
};
use herald_protocol::wire::MessageStatus;

use super::*;

pub fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 3, 1, 12, 0, 0).unwrap()
}

pub fn account_id() -> AccountId {
    AccountId::from_random(&[1; 16])
}

fn other_account_id() -> AccountId {
    AccountId::from_random(&[2; 16])
}

fn device_id(account: &AccountId) -> DeviceId {
    DeviceId::from_random(&[if account == &account_id() { 3 } else { 4 }; 16])
}

pub fn connection_id(n: u8) -> ConnectionId {
    ConnectionId::from_random(&[10 + n; 16])
}

fn message_id(n: u8) -> MessageId {
    MessageId::from_random(&[100 + n; 16])
}

fn cert(tag: &str) -> Certificate {
    Certificate {
        payload: b64_encode(tag.as_bytes()),
        signature: b64_encode(&[0; 64]),
    }
}

fn device(account: &AccountId) -> Principal {
    Principal::Device {
        account: account.clone(),
        device_id: device_id(account),
    }
}

fn connection(n: u8) -> Principal {
    Principal::Connection {
        account: account_id(),
        connection_id: connection_id(n),
    }
}

fn hash(n: u8) -> TokenHash {
    [n; 32]
}

fn seed(store: &dyn Store, account: AccountId, token: u8) {
    store
        .create_account(NewAccount {
            device_id: device_id(&account),
            account_id: account,
            statement: cert("statement"),
            encryption_key: cert("aek1"),
            encryption_key_epoch: 1,
            device: cert("device"),
            device_name: "Laptop".into(),
            device_platform: "linux".into(),
            device_token_hash: hash(token),
            now: t0(),
        })
        .expect("create account");
}

/// Account 1 with its device (token hash [1; 32]).
pub fn seed_account(store: &dyn Store) {
    seed(store, account_id(), 1);
}

pub fn add_connection(store: &dyn Store, n: u8) {
    store
        .create_connection(NewConnection {
            scopes: herald_protocol::scopes::Scope::ALL.to_vec(),
            account_id: account_id(),
            connection_id: connection_id(n),
            certificate: cert("connection"),
            name: format!("Agent {n}"),
            token_hash: hash(50 + n),
            now: t0(),
        })
        .expect("create connection");
}

fn envelope(id: &MessageId) -> Envelope {
    let header = EnvelopeHeader {
        v: 1,
        suite: SUITE_V1.into(),
        kind: EnvelopeKind::Message,
        account_id: account_id(),
        message_id: id.clone(),
        sender: herald_protocol::envelope::Principal::Device(device_id(&account_id())),
        signing_key_id: "k".into(),
        created_at: "2026-03-01T12:00:00Z".into(),
        recipients: vec!["aek1".into()],
    };
    Envelope {
        v: 1,
        suite: SUITE_V1.into(),
        header: b64_encode(&serde_json::to_vec(&header).unwrap()),
        recipients: vec![SealedKey {
            key_id: "aek1".into(),
            enc: "AA".into(),
            ct: "AA".into(),
        }],
        ciphertext: "AAAA".into(),
        signature: b64_encode(&[0; 64]),
    }
}

fn new_message(n: u8, sender: Principal, expects_answer: bool) -> NewMessage {
    NewMessage {
        account_id: sender.account().clone(),
        id: message_id(n),
        kind: "message".into(),
        expects_answer,
        sender,
        sender_name: "Sender".into(),
        expires_at: None,
        reply_to: None,
        envelope: envelope(&message_id(n)),
        now: t0(),
    }
}

fn claim(scope: &str, key: &str, body: u8) -> IdempotencyClaim {
    IdempotencyClaim {
        scope: scope.into(),
        key: key.into(),
        request_hash: [body; 32],
    }
}

fn send(store: &dyn Store, m: NewMessage) -> MessageRecord {
    let key = m.id.to_string();
    match store.send_message(m, claim("s", &key, 0)).expect("send") {
        SendOutcome::Created(r) => r,
        SendOutcome::Replayed(_) => panic!("a fresh key must create"),
    }
}

fn answer_of(n: u8) -> NewAnswer {
    NewAnswer {
        device_id: device_id(&account_id()),
        envelope: envelope(&message_id(n)),
        now: t0(),
    }
}

pub fn account_exists_once(store: &dyn Store) {
    seed_account(store);
    let err = store
        .create_account(NewAccount {
            account_id: account_id(),
            statement: cert("s"),
            encryption_key: cert("k"),
            encryption_key_epoch: 1,
            device_id: DeviceId::from_random(&[77; 16]),
            device: cert("d"),
            device_name: "x".into(),
            device_platform: "x".into(),
            device_token_hash: hash(77),
            now: t0(),
        })
        .expect_err("duplicate account");
    assert!(
        matches!(err, StoreError::AccountExists),
        "AccountExists, got {err:?}"
    );
    let keys = store.account_keys(&account_id()).expect("keys");
    assert_eq!(
        keys.statement,
        cert("statement"),
        "the first statement is kept"
    );
    assert_eq!(keys.devices.len(), 1, "the failed create added no device");
}

pub fn credentials_by_hash(store: &dyn Store) {
    seed_account(store);
    add_connection(store, 1);
    let dev = store
        .credential(&hash(1))
        .expect("lookup")
        .expect("device found");
    assert_eq!(
        dev.last_seen,
        Some(t0()),
        "a new device was last seen when created"
    );
    store
        .touch_device(&device_id(&account_id()), t0() + Duration::minutes(9))
        .expect("touch");
    store
        .touch_device(&device_id(&account_id()), t0() + Duration::minutes(7))
        .expect("touch");
    let dev = store
        .credential(&hash(1))
        .expect("lookup")
        .expect("device found");
    assert_eq!(
        dev.last_seen,
        Some(t0() + Duration::minutes(9)),
        "last_seen only moves forward"
    );
    let dev = store
        .credential(&hash(1))
        .expect("lookup")
        .expect("device found");
    assert_eq!(dev.principal, device(&account_id()), "device principal");
    assert_eq!(
        dev.token_hash,
        hash(1),
        "stored hash returned for the constant-time compare"
    );
    let con = store
        .credential(&hash(51))
        .expect("lookup")
        .expect("connection found");
    assert_eq!(con.principal, connection(1), "connection principal");
    assert!(!con.revoked, "not revoked yet");
    store
        .revoke_connection(&account_id(), &connection_id(1), t0())
        .expect("revoke");
    let again = store
        .revoke_connection(&account_id(), &connection_id(1), t0())
        .expect_err("revoked twice");
    assert!(
        matches!(again, StoreError::AlreadyRevoked),
        "a second revocation is reported, not a success: {again:?}"
    );
    let con = store
        .credential(&hash(51))
        .expect("lookup")
        .expect("still found");
    assert!(con.revoked, "revocation is visible to the lookup");
    assert!(
        store.credential(&hash(200)).expect("lookup").is_none(),
        "unknown hash"
    );
    let err = store
        .revoke_connection(&other_account_id(), &connection_id(1), t0())
        .expect_err("another account");
    assert!(
        matches!(err, StoreError::NotFound),
        "cannot revoke another account's connection"
    );
}

pub fn keys_skip_revoked_connections(store: &dyn Store) {
    seed_account(store);
    add_connection(store, 1);
    add_connection(store, 2);
    store
        .revoke_connection(&account_id(), &connection_id(1), t0())
        .expect("revoke");
    let keys = store.account_keys(&account_id()).expect("keys");
    assert_eq!(keys.connections.len(), 1, "only the live connection");
    assert_eq!(keys.encryption_keys, vec![cert("aek1")], "epoch 1");
    let list = store.list_connections(&account_id()).expect("list");
    assert_eq!(list.len(), 2, "the list keeps revoked connections");
    assert!(
        list.iter().any(|c| c.revoked_at.is_some()),
        "with their revocation time"
    );
    let err = store.create_connection(NewConnection {
        scopes: herald_protocol::scopes::Scope::ALL.to_vec(),
        account_id: account_id(),
        connection_id: connection_id(2),
        certificate: cert("c"),
        name: "dup".into(),
        token_hash: hash(99),
        now: t0(),
    });
    assert!(
        matches!(err, Err(StoreError::ConnectionExists)),
        "duplicate connection id"
    );
}

pub fn send_replay_and_conflict(store: &dyn Store) {
    seed_account(store);
    let m = new_message(1, device(&account_id()), false);
    let first = match store
        .send_message(m.clone(), claim("dev", "k", 1))
        .expect("send")
    {
        SendOutcome::Created(r) => r,
        other => panic!("created expected, got {other:?}"),
    };
    assert_eq!(first.revision, Revision(1), "first change of the account");
    assert_eq!(
        first.status,
        MessageStatus::Delivered,
        "no question: delivered"
    );
    match store
        .send_message(m.clone(), claim("dev", "k", 1))
        .expect("replay")
    {
        SendOutcome::Replayed(r) => assert_eq!(r, first, "the original record"),
        other => panic!("replay expected, got {other:?}"),
    }
    let conflict = store.send_message(
        new_message(2, device(&account_id()), false),
        claim("dev", "k", 2),
    );
    assert!(
        matches!(conflict, Err(StoreError::IdempotencyConflict)),
        "other body"
    );
    let taken = store.send_message(m, claim("dev", "other", 1));
    assert!(
        matches!(taken, Err(StoreError::MessageIdTaken)),
        "same id, other key"
    );
    let found = store
        .idempotent_send("dev", "k", t0())
        .expect("lookup")
        .expect("stored");
    assert_eq!(found.0, [1; 32], "request hash kept");
    assert_eq!(
        store
            .latest_revision(&account_id(), &Viewer::Device)
            .unwrap(),
        Revision(1),
        "one change only"
    );
}

pub fn revisions_are_per_account(store: &dyn Store) {
    seed_account(store);
    seed(store, other_account_id(), 2);
    let a1 = send(store, new_message(1, device(&account_id()), false));
    let b1 = send(store, new_message(2, device(&other_account_id()), false));
    let a2 = send(store, new_message(3, device(&account_id()), false));
    assert_eq!(
        (a1.revision, a2.revision),
        (Revision(1), Revision(2)),
        "account 1 counts 1, 2"
    );
    assert_eq!(b1.revision, Revision(1), "account 2 has its own counter");
}

pub fn pages_in_revision_order(store: &dyn Store) {
    seed_account(store);
    for n in 0..5 {
        send(store, new_message(n, device(&account_id()), false));
    }
    let (page, more) = store
        .messages_after(&account_id(), &Viewer::Device, Revision(0), 3, None, t0())
        .expect("page");
    assert_eq!(
        page.iter().map(|r| r.revision.0).collect::<Vec<_>>(),
        vec![1, 2, 3],
        "first page"
    );
    assert!(more, "two remain");
    let (page, more) = store
        .messages_after(&account_id(), &Viewer::Device, Revision(3), 2, None, t0())
        .expect("page");
    assert_eq!(
        page.iter().map(|r| r.revision.0).collect::<Vec<_>>(),
        vec![4, 5],
        "exact last page"
    );
    assert!(!more, "nothing after an exact page");
    let (page, more) = store
        .messages_after(&account_id(), &Viewer::Device, Revision(5), 2, None, t0())
        .expect("page");
    assert!(page.is_empty() && !more, "empty after the head");
}

pub fn pages_filtered_by_sender(store: &dyn Store) {
    seed_account(store);
    add_connection(store, 1);
    add_connection(store, 2);
    let first = send(store, new_message(1, connection(1), false));
    send(store, new_message(2, connection(2), false));
    send(store, new_message(3, device(&account_id()), false));
    let third = send(store, new_message(4, connection(1), false));
    let one = connection_id(1);
    let page = |viewer: &Viewer, after: u64, limit: u32, sender: &str| {
        store
            .messages_after(
                &account_id(),
                viewer,
                Revision(after),
                limit,
                Some(sender),
                t0(),
            )
            .expect("page")
    };
    let (records, more) = page(&Viewer::Device, 0, 100, one.as_str());
    assert_eq!(
        records,
        vec![first.clone(), third.clone()],
        "a device asking for connection 1's messages gets exactly those, in revision order"
    );
    assert!(!more, "nothing else from it");
    let (records, more) = page(&Viewer::Device, 0, 1, one.as_str());
    assert_eq!(
        (records, more),
        (vec![first.clone()], true),
        "paged by the filter"
    );
    let (records, _) = page(&Viewer::Device, first.revision.0, 100, one.as_str());
    assert_eq!(records, vec![third], "after the cursor");
    let own_device = device_id(&account_id());
    let (records, _) = page(&Viewer::Device, 0, 100, own_device.as_str());
    assert_eq!(
        records.iter().map(|r| r.revision.0).collect::<Vec<_>>(),
        vec![3],
        "a device is a sender too"
    );
    let (records, _) = page(&Viewer::Device, 0, 100, connection_id(9).as_str());
    assert!(records.is_empty(), "an unknown sender matches nothing");
    let (records, _) = page(&Viewer::Connection(connection_id(2)), 0, 100, one.as_str());
    assert!(
        records.is_empty(),
        "a connection never sees another's messages through the filter"
    );
}

pub fn connections_see_their_own(store: &dyn Store) {
    seed_account(store);
    add_connection(store, 1);
    add_connection(store, 2);
    let mine = send(store, new_message(1, connection(1), true));
    send(store, new_message(2, connection(2), false));
    send(store, new_message(3, device(&account_id()), false));
    let viewer = Viewer::Connection(connection_id(1));
    let (page, _) = store
        .messages_after(&account_id(), &viewer, Revision(0), 100, None, t0())
        .expect("page");
    assert_eq!(
        page,
        vec![mine.clone()],
        "connection 1 sees only its message"
    );
    assert!(
        store
            .message(&account_id(), &viewer, &message_id(2), t0())
            .unwrap()
            .is_none(),
        "not another connection's"
    );
    assert!(
        store
            .message(&other_account_id(), &Viewer::Device, &message_id(1), t0())
            .unwrap()
            .is_none(),
        "not from another account"
    );
    assert_eq!(
        store.latest_revision(&account_id(), &viewer).unwrap(),
        mine.revision,
        "its latest revision"
    );
    assert_eq!(
        store
            .latest_revision(&account_id(), &Viewer::Device)
            .unwrap(),
        Revision(3),
        "the account's"
    );
    let name = store.principal_name(&connection(1)).expect("name");
    assert_eq!(name, "Agent 1", "sender name from the connection");
}

pub fn answer_exactly_once(store: &dyn Store) {
    seed_account(store);
    let request = send(store, new_message(1, device(&account_id()), true));
    assert_eq!(
        request.status,
        MessageStatus::Pending,
        "a request starts pending"
    );
    let answered = store
        .answer(&account_id(), &message_id(1), answer_of(1))
        .expect("answer");
    assert_eq!(answered.status, MessageStatus::Answered, "answered");
    assert_eq!(
        answered.revision,
        Revision(2),
        "the answer takes the next revision"
    );
    assert!(answered.answer.is_some(), "answer attached");
    let again = store.answer(&account_id(), &message_id(1), answer_of(1));
    assert!(
        matches!(again, Err(StoreError::AlreadyAnswered)),
        "second answer"
    );
    send(store, new_message(2, device(&account_id()), false));
    let not_req = store.answer(&account_id(), &message_id(2), answer_of(2));
    assert!(
        matches!(not_req, Err(StoreError::NotARequest)),
        "plain message"
    );
    let missing = store.answer(&account_id(), &message_id(9), answer_of(9));
    assert!(
        matches!(missing, Err(StoreError::NotFound)),
        "unknown message"
    );
}

pub fn cancel_then_refuse(store: &dyn Store) {
    seed_account(store);
    add_connection(store, 1);
    send(store, new_message(1, connection(1), true));
    let other = Viewer::Connection(connection_id(2));
    let hidden = store.cancel(&account_id(), &other, &message_id(1), t0());
    assert!(
        matches!(hidden, Err(StoreError::NotFound)),
        "other connections cannot cancel"
    );
    let sender = Viewer::Connection(connection_id(1));
    let cancelled = store
        .cancel(&account_id(), &sender, &message_id(1), t0())
        .expect("cancel");
    assert_eq!(cancelled.status, MessageStatus::Cancelled, "cancelled");
    assert_eq!(cancelled.revision, Revision(2), "cancel takes a revision");
    let answer = store.answer(&account_id(), &message_id(1), answer_of(1));
    assert!(
        matches!(answer, Err(StoreError::RequestCancelled)),
        "no answer after cancel"
    );
}

pub fn expiry_by_clock_and_sweep(store: &dyn Store) {
    seed_account(store);
    let mut m = new_message(1, device(&account_id()), true);
    m.expires_at = Some(t0() + Duration::seconds(60));
    send(store, m);
    let before = t0() + Duration::seconds(59);
    let at = t0() + Duration::seconds(60);
    let rec = store
        .message(&account_id(), &Viewer::Device, &message_id(1), before)
        .unwrap()
        .unwrap();
    assert_eq!(rec.status, MessageStatus::Pending, "before the deadline");
    assert!(
        store.expire_due(before).unwrap().is_empty(),
        "nothing due before the deadline"
    );
    let rec = store
        .message(&account_id(), &Viewer::Device, &message_id(1), at)
        .unwrap()
        .unwrap();
    assert_eq!(
        rec.status,
        MessageStatus::Expired,
        "reads report expiry before the sweep"
    );
    assert_eq!(rec.revision, Revision(1), "the read wrote nothing");
    let mut late = answer_of(1);
    late.now = at;
    let refused = store.answer(&account_id(), &message_id(1), late);
    assert!(
        matches!(refused, Err(StoreError::RequestExpired)),
        "answer at the deadline"
    );
    let swept = store.expire_due(at).expect("sweep");
    assert_eq!(swept.len(), 1, "one request expired");
    assert_eq!(
        swept[0].record.status,
        MessageStatus::Expired,
        "stored as expired"
    );
    assert_eq!(swept[0].record.revision, Revision(2), "with a new revision");
    assert!(
        store.expire_due(at).unwrap().is_empty(),
        "a second sweep finds nothing"
    );
}

pub fn replies_need_a_parent(store: &dyn Store) {
    seed_account(store);
    send(store, new_message(1, device(&account_id()), false));
    let mut reply = new_message(2, device(&account_id()), false);
    reply.reply_to = Some(message_id(1));
    let rec = send(store, reply);
    assert_eq!(rec.reply_to, Some(message_id(1)), "replyTo kept");
    let mut orphan = new_message(3, device(&account_id()), false);
    orphan.reply_to = Some(message_id(42));
    let err = store.send_message(orphan, claim("s", "orphan", 0));
    assert!(
        matches!(err, Err(StoreError::NotFound)),
        "a reply to nothing is refused"
    );
}

/// One `#[test]` per suite case over the store `$make()` returns as `(guard, store)`.
#[macro_export]
#[doc(hidden)]
macro_rules! store_suite {
    ($make:expr) => {
        $crate::store_suite!(@cases $make;
            account_exists_once, credentials_by_hash, keys_skip_revoked_connections,
            send_replay_and_conflict, revisions_are_per_account, pages_in_revision_order,
            pages_filtered_by_sender, connections_see_their_own, answer_exactly_once, cancel_then_refuse,
            expiry_by_clock_and_sweep, replies_need_a_parent);
    };
    (@cases $make:expr; $($case:ident),*) => {
        mod suite_cases {
            #[allow(unused_imports)]
            use super::*;
            $(
                #[test]
                fn $case() {
                    let (_guard, store) = ($make)();
                    $crate::store::suite::$case(&store);
                }
            )*
        }
    };
}
