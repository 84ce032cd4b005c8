use super::*;
use herald_protocol::wire::MessageStatus;

fn record(id: &str, revision: u64, status: MessageStatus) -> StoredRecord {
    StoredRecord {
        id: id.into(),
        revision: Revision(revision),
        status,
        expects_answer: true,
        sender_name: "agent".into(),
        sender_id: Some("con_agent".into()),
        created_at: format!("2026-01-01T00:00:{:02}.000Z", revision % 60),
        expires_at: None,
        sealed_title: Some(vec![1, 2, 3]),
        sealed_content: None,
        sealed_answer: None,
        answered_at: None,
        error: None,
        thread_id: id.into(),
        thread_sequence: 0,
        reply_to: None,
        kind: "message".into(),
    }
}

#[test]
fn the_kind_migration_re_reads_the_history_and_keeps_read_state() {
    let dir = tempfile::tempdir().unwrap();
    {
        let mut c = rusqlite::Connection::open(dir.path().join(CACHE_FILE)).unwrap();
        migrations::apply_first(&mut c, 2).unwrap();
        c.execute_batch(
            "INSERT INTO messages (id, revision, status, expects_answer, sender_name, created_at,
                 unread, thread_id)
             VALUES ('offer', 7, 'delivered', 0, 'agent', '2026-01-01T00:00:00.000Z', 0, 'offer');
             UPDATE sync_state SET cursor = 7;",
        )
        .unwrap();
    }
    let cache = Cache::open(dir.path()).unwrap();
    assert_eq!(
        cache.cursor().unwrap(),
        Revision(0),
        "the next catch-up reads the whole history again"
    );
    let old = cache.get("offer").unwrap();
    assert_eq!(
        old.record.kind, "message",
        "rows from before default to message"
    );
    assert_eq!(
        old.record.revision,
        Revision(0),
        "and yield to the re-read record"
    );
    let mut offer = record("offer", 7, MessageStatus::Delivered);
    offer.kind = "secret".into();
    let fresh = cache.store_page(&[offer], Revision(7)).unwrap();
    assert_eq!(fresh, [false], "a known message is not announced as new");
    let now = cache.get("offer").unwrap();
    assert_eq!(
        now.record.kind, "secret",
        "the re-read record brings its kind"
    );
    assert!(!now.unread, "read state survives the migration");
}

#[test]
fn the_sender_id_migration_keeps_old_rows_and_fills_new_ones() {
    let dir = tempfile::tempdir().unwrap();
    {
        let mut c = rusqlite::Connection::open(dir.path().join(CACHE_FILE)).unwrap();
        migrations::apply_first(&mut c, 7).unwrap();
        c.execute_batch(
            "INSERT INTO messages (id, revision, status, expects_answer, sender_name, created_at,
                 thread_id)
             VALUES ('old', 3, 'delivered', 0, 'agent', '2026-01-01T00:00:00.000Z', 'old');
             UPDATE sync_state SET cursor = 3;",
        )
        .unwrap();
    }
    let cache = Cache::open(dir.path()).unwrap();
    assert_eq!(
        cache.cursor().unwrap(),
        Revision(3),
        "nothing is read again: only new arrivals get banners"
    );
    assert_eq!(
        cache.get("old").unwrap().record.sender_id,
        None,
        "a row from before has no sender id"
    );
    cache
        .store_record(&record("new", 4, MessageStatus::Pending))
        .unwrap();
    assert_eq!(
        cache.get("new").unwrap().record.sender_id.as_deref(),
        Some("con_agent"),
        "a new row keeps its sender's id"
    );
    let mut unknown = record("new", 5, MessageStatus::Answered);
    unknown.sender_id = None;
    cache.store_record(&unknown).unwrap();
    let kept = cache.get("new").unwrap().record;
    assert_eq!(kept.status, MessageStatus::Answered, "the update applies");
    assert_eq!(
        kept.sender_id.as_deref(),
        Some("con_agent"),
        "an update without a sender id keeps the known one"
    );
}

#[test]
fn page_and_cursor_commit_together_and_stale_records_are_ignored() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    assert_eq!(
        cache.cursor().unwrap(),
        Revision(0),
        "fresh cache starts at 0"
    );
    let fresh = cache
        .store_page(
            &[
                record("a", 1, MessageStatus::Pending),
                record("b", 2, MessageStatus::Pending),
            ],
            Revision(2),
        )
        .unwrap();
    assert_eq!(fresh, [true, true], "both new");
    assert_eq!(
        cache.cursor().unwrap(),
        Revision(2),
        "cursor advanced with the page"
    );
    let fresh = cache
        .store_page(&[record("a", 3, MessageStatus::Answered)], Revision(3))
        .unwrap();
    assert_eq!(fresh, [false], "a is an update");
    assert_eq!(
        cache.get("a").unwrap().record.status,
        MessageStatus::Answered,
        "update applied"
    );
    cache
        .store_record(&record("a", 1, MessageStatus::Pending))
        .unwrap();
    assert_eq!(
        cache.get("a").unwrap().record.status,
        MessageStatus::Answered,
        "older revision ignored"
    );
    cache.store_page(&[], Revision(1)).unwrap();
    assert_eq!(
        cache.cursor().unwrap(),
        Revision(3),
        "cursor never moves back"
    );
}

#[test]
fn read_state_survives_updates_and_reopen() {
    let dir = tempfile::tempdir().unwrap();
    {
        let cache = Cache::open(dir.path()).unwrap();
        cache
            .store_page(&[record("a", 1, MessageStatus::Pending)], Revision(1))
            .unwrap();
        assert!(cache.get("a").unwrap().unread, "new messages are unread");
        assert!(cache.mark_read("a").unwrap(), "marked");
        cache
            .store_page(&[record("a", 2, MessageStatus::Answered)], Revision(2))
            .unwrap();
    }
    let cache = Cache::open(dir.path()).unwrap();
    assert!(
        !cache.get("a").unwrap().unread,
        "read state kept across update and reopen"
    );
    assert_eq!(cache.cursor().unwrap(), Revision(2), "cursor persisted");
}

#[test]
fn corrupt_cache_is_rebuilt() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join(CACHE_FILE),
        b"this is not a sqlite database at all, not even close",
    )
    .unwrap();
    let cache = Cache::open(dir.path()).expect("a corrupt cache is moved aside, not fatal");
    assert_eq!(
        cache.cursor().unwrap(),
        Revision(0),
        "rebuilt cache syncs from the start"
    );
    let aside: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(&format!("{CACHE_FILE}.corrupt-")))
        .collect();
    assert_eq!(
        aside.len(),
        1,
        "the bad file is kept for inspection: {aside:?}"
    );
}

#[cfg(unix)]
#[test]
fn the_cache_files_are_private() {
    use std::os::unix::fs::PermissionsExt;
    let mode =
        |p: &std::path::Path| std::fs::metadata(p).expect("exists").permissions().mode() & 0o777;
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join(CACHE_FILE);
    let cache = Cache::open(dir.path()).expect("open");
    cache
        .store_page(&[record("m1", 1, MessageStatus::Pending)], Revision(1))
        .expect("a write makes the WAL");
    assert_eq!(mode(&path), 0o600, "cache.db");
    let wal = dir.path().join(format!("{CACHE_FILE}-wal"));
    if wal.exists() {
        assert_eq!(mode(&wal), 0o600, "the WAL");
    }
    drop(cache);
    // An older cache created world-readable is narrowed when opened.
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).expect("chmod");
    let _cache = Cache::open(dir.path()).expect("reopen");
    assert_eq!(mode(&path), 0o600, "narrowed on open");
}

#[test]
fn a_reply_is_kept_when_the_sync_stored_its_revision_first() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::open(dir.path()).unwrap();
    let row = notifications::CachedNotification {
        id: "ntf_1".into(),
        revision: Revision(7),
        notification_id: "build-214".into(),
        source_kind: "agent_key".into(),
        source_name: "ci".into(),
        source_id: Some("ak_ci".into()),
        received_at: "2026-01-01T00:00:00.000Z".into(),
        expect_reply: true,
        suppressed: false,
        displayed_at: None,
        spoken_at: None,
        replied_at: Some("2026-01-01T00:00:01.000Z".into()),
        sealed_content: Some(vec![1]),
        sealed_reply: None,
        error: None,
        unread: true,
    };
    cache.store_notification(&row).unwrap();
    let replied = notifications::CachedNotification {
        sealed_reply: Some(vec![9, 9]),
        ..row
    };
    cache.store_notification(&replied).unwrap();
    assert_eq!(
        cache.notification("ntf_1").unwrap().sealed_reply,
        Some(vec![9, 9]),
        "the same revision stored again with the reply keeps the reply"
    );
    assert_eq!(
        cache.notification("ntf_1").unwrap().source_id.as_deref(),
        Some("ak_ci"),
        "the agent's id is kept for muting"
    );
}
