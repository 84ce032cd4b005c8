//! Device cache faults (docs/faults.md, "Device faults"): the desktop core SIGKILLed at random
//! points of a sync, and a cache file that is truncated, overwritten, empty or whose WAL is
//! damaged. A real relay (herald-testkit), real SQLite files, real crypto; the killed core is a
//! separate process (this test binary run again as `sync_worker_process`).

mod fault_support;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use fault_support::*;
use herald_client::view::{CoreEvent, SetupStatus};
use herald_testkit::TestRelay;

/// Set for the worker process: the device data dir it syncs.
const WORKER_DIR: &str = "HERALD_FAULT_WORKER_DIR";

/// The worker: opens the core on `$HERALD_FAULT_WORKER_DIR`, prints `stored N` after each
/// record stored (an event follows the page's commit) and `done` once caught up. Does nothing
/// when run by hand without the variable.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "the worker process of kill9_mid_sync_never_skips_a_record, started by it"]
async fn sync_worker_process() {
    let Ok(dir) = std::env::var(WORKER_DIR) else {
        return;
    };
    let core = open_core(Path::new(&dir), "Laptop");
    let mut events = core.subscribe();
    let printer = tokio::spawn(async move {
        let mut stored = 0u64;
        loop {
            match events.recv().await {
                Ok(CoreEvent::MessageUpserted { .. }) => {
                    stored += 1;
                    println!("stored {stored}");
                }
                Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                Err(_) => return,
            }
        }
    });
    core.sync_once().await.expect("the worker's sync");
    drop(core);
    let _ = printer.await;
    println!("done");
}

/// Starts the worker process on `dir`; its stdout is piped.
fn spawn_worker(dir: &Path) -> std::process::Child {
    Command::new(std::env::current_exe().expect("this test binary"))
        .args([
            "--exact",
            "sync_worker_process",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(WORKER_DIR, dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("worker starts")
}

/// Runs the worker until it printed `kill_after` records (then SIGKILLs it) or finished.
/// Returns whether it was killed.
fn run_worker(dir: PathBuf, kill_after: Option<u64>, delay_us: u64) -> bool {
    let mut child = spawn_worker(&dir);
    let stdout = child.stdout.take().expect("piped stdout");
    let mut killed = false;
    for line in BufReader::new(stdout).lines() {
        let Ok(line) = line else { break };
        let stored = line
            .strip_prefix("stored ")
            .and_then(|n| n.trim().parse::<u64>().ok());
        if let (Some(n), Some(k)) = (stored, kill_after) {
            if n >= k {
                std::thread::sleep(std::time::Duration::from_micros(delay_us));
                child.kill().expect("SIGKILL the worker"); // SIGKILL on Unix
                killed = true;
                break;
            }
        }
    }
    let status = child.wait().expect("worker exits");
    if !killed {
        assert!(status.success(), "the worker synced to the end: {status}");
    }
    killed
}

/// The cache after a kill: intact, no duplicates, and exactly the relay's messages up to
/// its cursor (the cursor never ran past a record it did not store).
fn assert_consistent(dir: &Path, relay: &TestRelay) -> u64 {
    assert_eq!(
        corrupt_files(dir),
        Vec::<String>::new(),
        "nothing moved aside"
    );
    let cache = read_cache_file(dir);
    assert_eq!(cache.integrity, ["ok"], "PRAGMA integrity_check");
    assert_eq!(cache.rows, cache.messages.len(), "no duplicate rows");
    let relay_side = relay_messages(relay, cache.cursor);
    let skipped: Vec<_> = relay_side
        .iter()
        .filter(|(id, rev)| cache.messages.get(*id) != Some(rev))
        .take(5)
        .collect();
    let beyond: Vec<_> = cache
        .messages
        .iter()
        .filter(|(id, _)| !relay_side.contains_key(*id))
        .take(5)
        .collect();
    assert!(
        skipped.is_empty() && beyond.is_empty(),
        "the cache holds exactly the relay's messages up to its cursor {}: \
         missing (first 5) {skipped:?}, beyond the cursor (first 5) {beyond:?}",
        cache.cursor
    );
    cache.cursor
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill9_mid_sync_never_skips_a_record() {
    let world = World::start(TestRelay::start().await).await;
    let World {
        relay, dir, core, ..
    } = &world;
    let mut rng = Rng::seeded(0x5EED_0006);
    let mut sent = 0;
    send_reports(&world.agent, 0, 300).await;
    sent += 300;
    core.stop_sync();
    let mut kills = 0;
    let mut last_cursor = read_cache_file(dir.path()).cursor;
    for round in 0..6 {
        send_reports(&world.agent, sent, sent + 120).await;
        sent += 120;
        let behind = relay_head(relay) - last_cursor;
        let kill_after = rng.range(1, behind.saturating_sub(1).max(1));
        let delay_us = rng.range(0, 20_000);
        let path = dir.path().to_path_buf();
        let killed =
            tokio::task::spawn_blocking(move || run_worker(path, Some(kill_after), delay_us))
                .await
                .unwrap();
        kills += u32::from(killed);
        let cursor = assert_consistent(dir.path(), relay);
        assert!(
            cursor >= last_cursor,
            "round {round}: the cursor never goes back"
        );
        eprintln!("round {round}: killed={killed} after {kill_after} stored, cursor {cursor}");
        last_cursor = cursor;
    }
    assert!(
        kills >= 4,
        "most rounds were killed mid-sync ({kills} of 6)"
    );

    // A last run to the end: everything is there, once, and opens.
    let path = dir.path().to_path_buf();
    tokio::task::spawn_blocking(move || run_worker(path, None, 0))
        .await
        .unwrap();
    let cursor = assert_consistent(dir.path(), relay);
    assert_eq!(cursor, relay_head(relay), "caught up");
    let reopened = open_core(dir.path(), "Laptop");
    let inbox = assert_all_decrypt(&reopened).await;
    assert_eq!(inbox.len(), sent, "every report once");
}

/// How a case damages the copied data dir.
#[derive(Debug, Clone, Copy)]
enum Damage {
    TruncatedToHalf,
    MiddlePageOverwritten,
    HeaderGarbage,
    ZeroLength,
    WalOverwritten,
}

const PAGE: u64 = 4096;

fn damage(dir: &Path, how: Damage, rng: &mut Rng) {
    use std::io::{Seek, SeekFrom, Write};
    let db = dir.join(herald_client::cache::CACHE_FILE);
    let wal = dir.join(format!("{}-wal", herald_client::cache::CACHE_FILE));
    let open = |p: &Path| {
        std::fs::OpenOptions::new()
            .write(true)
            .open(p)
            .expect("file to damage")
    };
    let len = |p: &Path| std::fs::metadata(p).expect("file to damage").len();
    match how {
        Damage::TruncatedToHalf => open(&db).set_len(len(&db) / 2).unwrap(),
        Damage::ZeroLength => open(&db).set_len(0).unwrap(),
        Damage::HeaderGarbage => {
            let mut f = open(&db);
            f.write_all(&rng.bytes(100)).unwrap();
        }
        Damage::MiddlePageOverwritten => {
            let pages = len(&db) / PAGE;
            assert!(pages > 8, "a cache of some size ({pages} pages)");
            let mut f = open(&db);
            f.seek(SeekFrom::Start(pages / 2 * PAGE)).unwrap();
            f.write_all(&rng.bytes(PAGE as usize)).unwrap();
        }
        Damage::WalOverwritten => {
            let size = len(&wal);
            assert!(size > 64 * 1024, "a WAL with frames ({size} bytes)");
            let mut f = open(&wal);
            f.seek(SeekFrom::Start(size / 2)).unwrap();
            f.write_all(&rng.bytes(PAGE as usize)).unwrap();
        }
    }
}

/// Copies the device's files (cache, its WAL, keys, sealed state) to a fresh dir.
fn copy_device(from: &Path) -> tempfile::TempDir {
    let to = tempfile::tempdir().expect("case dir");
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name();
        if name.to_string_lossy().ends_with("-shm") || !entry.file_type().unwrap().is_file() {
            continue;
        }
        std::fs::copy(entry.path(), to.path().join(&name)).unwrap();
    }
    to
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_damaged_cache_is_detected_and_rebuilt_from_the_relay() {
    let world = World::start(TestRelay::start().await).await;
    const REPORTS: usize = 250;
    send_reports(&world.agent, 0, REPORTS).await;
    // The synced cache, copied while the core holds it open: its recent pages are still in
    // the WAL (a checkpoint runs at 1000 pages), as after a crash.
    world.core.sync_once().await.expect("first sync");
    let source = world.dir.path();
    let setup = world.core.setup_state();
    let keys = key_files(source);
    assert!(
        keys.iter().any(|(n, _)| n == herald_client::KEY_FILE),
        "the 0600 key file is there: {keys:?}"
    );
    let head = relay_head(&world.relay);
    let mut rng = Rng::seeded(0xC0DE_0006);

    for how in [
        Damage::TruncatedToHalf,
        Damage::MiddlePageOverwritten,
        Damage::HeaderGarbage,
        Damage::ZeroLength,
        Damage::WalOverwritten,
    ] {
        let case = copy_device(source);
        let wal_only = matches!(how, Damage::WalOverwritten);
        if !wal_only {
            // Damage the database file alone: fold the WAL in first (on the copy).
            let c = rusqlite::Connection::open(case.path().join("cache.db")).unwrap();
            c.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
                .unwrap();
            drop(c);
        }
        damage(case.path(), how, &mut rng);

        let core = open_core(case.path(), "Laptop");
        let aside = corrupt_files(case.path());
        match how {
            // SQLite reads an empty file as an empty database, and stops a WAL at its first
            // frame whose checksum fails: no damage to detect, the cursor says what is missing.
            Damage::ZeroLength | Damage::WalOverwritten => {
                assert_eq!(
                    aside,
                    Vec::<String>::new(),
                    "{how:?}: nothing to move aside"
                )
            }
            _ => assert!(
                !aside.is_empty(),
                "{how:?}: the damaged file is moved aside"
            ),
        }
        let before = read_cache_file(case.path());
        assert_eq!(before.integrity, ["ok"], "{how:?}: the open cache is sound");
        assert_eq!(
            before.messages,
            relay_messages(&world.relay, before.cursor),
            "{how:?}: what survived matches its cursor"
        );
        if !wal_only {
            assert_eq!(before.cursor, 0, "{how:?}: a fresh cache starts at 0");
        }

        // Keys untouched: same files, same bytes, same account and device.
        assert_eq!(key_files(case.path()), keys, "{how:?}: key files untouched");
        let state = core.setup_state();
        assert_eq!(state.status, SetupStatus::Ready, "{how:?}: still set up");
        assert_eq!(state.account_id, setup.account_id, "{how:?}: same account");
        assert_eq!(state.device_id, setup.device_id, "{how:?}: same device");

        core.sync_once().await.expect("rebuild from the relay");
        let after = read_cache_file(case.path());
        assert_eq!(after.cursor, head, "{how:?}: caught up");
        assert_eq!(after.messages.len(), REPORTS, "{how:?}: every report back");
        assert_eq!(after.integrity, ["ok"], "{how:?}: sound after the rebuild");
        assert_all_decrypt(&core).await;
        eprintln!("{how:?}: moved aside {aside:?}, survived {}", before.rows);
    }
}
