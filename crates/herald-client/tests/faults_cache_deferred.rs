//! A cache damaged after a clean close, opened with the full page check deferred
//! (`Core::open_deferring_cache_check`, what the desktop does; docs/faults.md, "Damaged
//! caches"): the check after the start finds it, moves it aside, and the catch-up rebuilds it
//! from a real relay; the keys and the device's account are untouched.

mod fault_support;

use std::io::{Seek, SeekFrom, Write};
use std::path::Path;

use fault_support::*;
use herald_client::cache::{CheckOutcome, CACHE_FILE, OPEN_MARKER};
use herald_client::view::SetupStatus;
use herald_client::{Core, CoreConfig};
use herald_testkit::TestRelay;

fn open_deferred(dir: &Path) -> Core {
    Core::open_deferring_cache_check(CoreConfig {
        data_dir: dir.to_path_buf(),
        device_name: "Laptop".into(),
        platform: "linux".into(),
        use_keychain: false,
    })
    .expect("core opens")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn damage_after_a_clean_close_is_found_after_the_start_and_rebuilt() {
    let world = World::start(TestRelay::start().await).await;
    const REPORTS: usize = 250;
    send_reports(&world.agent, 0, REPORTS).await;
    world.core.sync_once().await.expect("first sync");
    let setup = world.core.setup_state();
    let head = relay_head(&world.relay);
    let World { dir, core, .. } = world;
    let keys = key_files(dir.path());
    assert!(
        keys.iter().any(|(n, _)| n == herald_client::KEY_FILE),
        "the 0600 key file is there: {keys:?}"
    );
    // A clean close: the last handle dropped (WAL folded in, marker removed).
    drop(core);
    assert!(
        !dir.path().join(OPEN_MARKER).exists(),
        "closed cleanly: no open marker"
    );

    // Damage one page in the middle of the file.
    let db = dir.path().join(CACHE_FILE);
    let len = std::fs::metadata(&db).unwrap().len();
    let mut rng = Rng::seeded(0xC0DE_0007);
    let mut f = std::fs::OpenOptions::new().write(true).open(&db).unwrap();
    f.seek(SeekFrom::Start(len / 8192 / 2 * 8192)).unwrap();
    f.write_all(&rng.bytes(8192)).unwrap();
    drop(f);

    let core = open_deferred(dir.path());
    assert_eq!(
        corrupt_files(dir.path()),
        Vec::<String>::new(),
        "the open skips the full check after a clean close"
    );
    assert!(dir.path().join(OPEN_MARKER).exists(), "open again: marked");

    let outcome = core.verify_cache().await.expect("the deferred check runs");
    assert_eq!(outcome, CheckOutcome::Rebuilt, "the damage is found");
    assert_eq!(corrupt_files(dir.path()).len(), 1, "moved aside");
    let before = read_cache_file(dir.path());
    assert_eq!(before.integrity, ["ok"], "the fresh cache is sound");
    assert_eq!(before.cursor, 0, "a fresh cache starts at 0");

    // Keys untouched: same files, same bytes, same account and device.
    assert_eq!(key_files(dir.path()), keys, "key files untouched");
    let state = core.setup_state();
    assert_eq!(state.status, SetupStatus::Ready, "still set up");
    assert_eq!(state.account_id, setup.account_id, "same account");
    assert_eq!(state.device_id, setup.device_id, "same device");

    core.sync_once().await.expect("rebuild from the relay");
    let after = read_cache_file(dir.path());
    assert_eq!(after.cursor, head, "caught up");
    assert_eq!(after.messages.len(), REPORTS, "every report back");
    assert_eq!(after.integrity, ["ok"], "sound after the rebuild");
    assert_all_decrypt(&core).await;
    assert_eq!(
        core.verify_cache().await.unwrap(),
        CheckOutcome::Sound,
        "checked once per open"
    );

    // Closed cleanly again and undamaged: the next deferred check finds nothing.
    drop(core);
    let core = open_deferred(dir.path());
    assert_eq!(core.verify_cache().await.unwrap(), CheckOutcome::Sound);
    assert_eq!(corrupt_files(dir.path()).len(), 1, "nothing more moved");
    assert_eq!(core.inbox().await.unwrap().len(), REPORTS);
}

/// After a crash (the marker left behind) the deferred open checks at once, as `Core::open`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_an_unclean_exit_the_open_checks_every_page() {
    let world = World::start(TestRelay::start().await).await;
    send_reports(&world.agent, 0, 120).await;
    world.core.sync_once().await.expect("first sync");
    let World { dir, core, .. } = world;
    drop(core);
    let db = dir.path().join(CACHE_FILE);
    let len = std::fs::metadata(&db).unwrap().len();
    let mut f = std::fs::OpenOptions::new().write(true).open(&db).unwrap();
    f.seek(SeekFrom::Start(len / 8192 / 2 * 8192)).unwrap();
    f.write_all(&Rng::seeded(0xC0DE_0008).bytes(8192)).unwrap();
    drop(f);
    std::fs::write(dir.path().join(OPEN_MARKER), b"").unwrap(); // as a kill -9 leaves it

    let core = open_deferred(dir.path());
    assert_eq!(corrupt_files(dir.path()).len(), 1, "found at open");
    assert_eq!(read_cache_file(dir.path()).cursor, 0);
    assert_eq!(core.verify_cache().await.unwrap(), CheckOutcome::Sound);
    core.sync_once().await.expect("rebuild");
    assert_eq!(assert_all_decrypt(&core).await.len(), 120);
}
