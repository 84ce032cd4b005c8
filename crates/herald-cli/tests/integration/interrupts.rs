//! SIGINT, SIGTERM and SIGHUP during `herald` commands that write temporary or pre-created files
//! (docs/cli.md, "Interruption"): real relay, real `herald` processes, real signals, then the
//! directories are listed. Each child gets its own TMPDIR so leftovers of uploads show. The
//! agent and the device reach the relay through a throttling TCP proxy (real bytes, slowed
//! down) so that a transfer is still in flight when the signal arrives.
#![cfg(unix)]

use crate::common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command as StdCommand, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::*;

/// Generous: the CI machine has two loaded cores.
const PATIENCE: Duration = Duration::from_secs(120);

/// A TCP proxy in front of the relay that moves at most `up` bytes per second towards the
/// relay and `down` bytes per second back, on every connection (0: as fast as it can).
struct Throttle {
    url: String,
    up: Arc<AtomicU64>,
    down: Arc<AtomicU64>,
}

impl Throttle {
    fn start(relay_url: &str) -> Throttle {
        let target = relay_url
            .trim_start_matches("http://")
            .trim_end_matches('/')
            .to_owned();
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind proxy");
        let url = format!("http://{}", listener.local_addr().unwrap());
        let up = Arc::new(AtomicU64::new(0));
        let down = Arc::new(AtomicU64::new(0));
        let (up_rate, down_rate) = (Arc::clone(&up), Arc::clone(&down));
        std::thread::spawn(move || {
            for client in listener.incoming().flatten() {
                let Ok(server) = TcpStream::connect(&target) else {
                    continue;
                };
                for (from, to, rate) in [
                    (
                        client.try_clone().unwrap(),
                        server.try_clone().unwrap(),
                        Arc::clone(&up_rate),
                    ),
                    (server, client, Arc::clone(&down_rate)),
                ] {
                    std::thread::spawn(move || pipe(from, to, &rate));
                }
            }
        });
        Throttle { url, up, down }
    }

    /// Bytes per second towards the relay (uploads); 0: unlimited.
    fn set_up(&self, bytes_per_sec: u64) {
        self.up.store(bytes_per_sec, Ordering::Relaxed);
    }

    /// Bytes per second from the relay (downloads); 0: unlimited.
    fn set_down(&self, bytes_per_sec: u64) {
        self.down.store(bytes_per_sec, Ordering::Relaxed);
    }
}

fn pipe(mut from: TcpStream, mut to: TcpStream, rate: &AtomicU64) {
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        if to.write_all(&buf[..n]).is_err() {
            break;
        }
        let rate = rate.load(Ordering::Relaxed);
        if rate > 0 {
            std::thread::sleep(Duration::from_secs_f64(n as f64 / rate as f64));
        }
    }
    let _ = to.shutdown(std::net::Shutdown::Write);
}

/// A device whose relay URL is the throttle, with one connection; every `herald` it runs
/// has TMPDIR set to its own private directory.
struct Env {
    /// Runs until the test ends.
    _relay: ThreadedRelay,
    throttle: Throttle,
    home: tempfile::TempDir,
    tmp: tempfile::TempDir,
    work: tempfile::TempDir,
    token: String,
}

impl Env {
    fn start() -> Env {
        let relay = ThreadedRelay::start();
        let throttle = Throttle::start(&relay.url);
        let home = tempfile::tempdir().expect("home");
        let tmp = tempfile::tempdir().expect("tmp");
        let work = tempfile::tempdir().expect("work");
        let mut env = Env {
            _relay: relay,
            throttle,
            home,
            tmp,
            work,
            token: String::new(),
        };
        ok_stdout(env.device().args([
            "device",
            "init",
            "--relay",
            &env.throttle.url,
            "--name",
            "box",
        ]));
        env.token = ok_stdout(env.device().args(["connection", "create", "--name", "bot"]))
            .trim()
            .to_owned();
        env
    }

    fn device(&self) -> StdCommand {
        let mut cmd = herald(self.home.path());
        cmd.env("TMPDIR", self.tmp.path());
        cmd
    }

    fn agent(&self) -> StdCommand {
        let mut cmd = self.device();
        cmd.env("HERALD_URL", &self.throttle.url)
            .env("HERALD_TOKEN", &self.token);
        cmd
    }

    /// `sh -c "exec LINE"` with `herald` on PATH, this TMPDIR, and neither HERALD_URL,
    /// HERALD_TOKEN nor HERALD_HOME: a printed hint must work as it is written.
    fn shell(&self, line: &str) -> StdCommand {
        let bin = assert_cmd::cargo::cargo_bin("herald");
        let dir = bin.parent().expect("bin dir").to_owned();
        let path = std::env::var_os("PATH").unwrap_or_default();
        let mut dirs = vec![dir];
        dirs.extend(std::env::split_paths(&path));
        let mut cmd = StdCommand::new("sh");
        cmd.arg("-c")
            .arg(format!("exec {line}"))
            .env("PATH", std::env::join_paths(dirs).expect("PATH"))
            .env("TMPDIR", self.tmp.path())
            .env("HOME", self.home.path())
            .env("XDG_DATA_HOME", self.home.path().join("xdg-data"))
            .env("XDG_CONFIG_HOME", self.home.path().join("xdg-config"))
            .env_remove("HERALD_URL")
            .env_remove("HERALD_TOKEN")
            .env_remove("HERALD_HOME")
            .stdin(Stdio::null());
        cmd
    }

    fn path(&self, name: &str) -> PathBuf {
        self.work.path().join(name)
    }

    /// Polls the device's inbox until `title` is there; its id.
    fn wait_for_title(&self, title: &str) -> String {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let out = ok_stdout(self.device().args(["inbox", "list", "--json"]));
            let list: Vec<serde_json::Value> = serde_json::from_str(&out).expect("JSON");
            if let Some(m) = list.iter().find(|m| m["title"] == title) {
                return m["id"].as_str().expect("id").to_owned();
            }
            assert!(Instant::now() < deadline, "{title:?} never arrived");
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}

/// A running `herald` whose standard error is collected line by line.
struct Running {
    child: Child,
    stderr: Arc<Mutex<String>>,
    reader: Option<std::thread::JoinHandle<()>>,
}

impl Running {
    /// The child starts with SIGHUP's default disposition, whatever this test runner inherited:
    /// under `nohup` (or a CI runner that ignores SIGHUP) `herald` rightly keeps ignoring it,
    /// and the SIGHUP cases would wait for ever.
    #[allow(unsafe_code)] // pre_exec is unsafe by signature
    fn spawn(cmd: &mut StdCommand) -> Running {
        use std::os::unix::process::CommandExt;
        // SAFETY: between fork and exec only signal(2), which is async-signal-safe, runs.
        unsafe {
            cmd.pre_exec(|| {
                if libc::signal(libc::SIGHUP, libc::SIG_DFL) == libc::SIG_ERR {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let mut child = cmd
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("herald starts");
        let stderr = Arc::new(Mutex::new(String::new()));
        let pipe = child.stderr.take().expect("stderr");
        let lines = Arc::clone(&stderr);
        let reader = std::thread::spawn(move || {
            for line in BufReader::new(pipe).lines().map_while(Result::ok) {
                let mut all = lines.lock().unwrap();
                all.push_str(&line);
                all.push('\n');
            }
        });
        Running {
            child,
            stderr,
            reader: Some(reader),
        }
    }

    fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// Waits until standard error contains `text`.
    fn wait_for_stderr(&mut self, text: &str) {
        let deadline = Instant::now() + PATIENCE;
        while !self.stderr().contains(text) {
            if let Ok(Some(status)) = self.child.try_wait() {
                std::thread::sleep(Duration::from_millis(200));
                panic!(
                    "herald ended ({status}) before printing {text:?}: {}",
                    self.stderr()
                );
            }
            assert!(
                Instant::now() < deadline,
                "no {text:?} on stderr: {}",
                self.stderr()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Sends `signal` (libc::SIGINT, libc::SIGTERM).
    #[allow(unsafe_code)] // kill(2) has no safe wrapper for an arbitrary signal
    fn kill(&self, signal: libc::c_int) {
        let pid = self.child.id() as libc::pid_t;
        // SAFETY: kill(2) on our own child's pid; no memory is involved.
        let sent = unsafe { libc::kill(pid, signal) };
        assert_eq!(sent, 0, "kill({pid}, {signal})");
    }

    /// Waits for the exit (bounded); its code, stdout, and all of stderr.
    fn finish(mut self) -> (Option<i32>, String, String) {
        let deadline = Instant::now() + PATIENCE;
        let status = loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                break status;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("herald did not exit after the signal: {}", self.stderr());
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        if let Some(reader) = self.reader.take() {
            let _ = reader.join();
        }
        let mut stdout = String::new();
        if let Some(mut out) = self.child.stdout.take() {
            let _ = out.read_to_string(&mut stdout);
        }
        (status.code(), stdout, self.stderr())
    }
}

/// Waits until `dir` holds an entry whose name starts with `prefix`; its path.
fn wait_for_entry(dir: &Path, prefix: &str, running: &mut Running) -> PathBuf {
    let deadline = Instant::now() + PATIENCE;
    loop {
        if let Some(found) = entries(dir)
            .into_iter()
            .find(|n| n.starts_with(prefix))
            .map(|n| dir.join(n))
        {
            return found;
        }
        if let Ok(Some(status)) = running.child.try_wait() {
            panic!(
                "herald ended ({status}) before {prefix}* appeared in {}: {}",
                dir.display(),
                running.stderr()
            );
        }
        assert!(
            Instant::now() < deadline,
            "no {prefix}* in {}: {}",
            dir.display(),
            running.stderr()
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// The names in `dir`, hidden ones included, sorted.
fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

fn big_file(path: &Path, bytes: usize) {
    let data: Vec<u8> = (0..bytes).map(|i| (i * 7 % 251) as u8).collect();
    std::fs::write(path, data).unwrap();
}

/// A file field answered with a 6 MB file, downloaded with `--out-dir` through a 1 MB/s
/// link: SIGINT while the hidden `.herald-download-*` file is being filled. Nothing is left
/// in the directory (no partly decrypted plaintext), the hint names the flags, exit 130; the
/// resume then saves the file.
#[test]
fn sigint_during_an_out_dir_download_leaves_nothing_and_hints_the_resume() {
    let env = Env::start();
    let out_dir = env.path("answers");
    std::fs::create_dir(&out_dir).unwrap();
    let mut asking = Running::spawn(
        env.agent()
            .args(["ask", "--title", "Big logs", "--field", "logs:file"])
            .arg("--out-dir")
            .arg(&out_dir),
    );
    asking.wait_for_stderr("waiting for an answer");
    let id = env.wait_for_title("Big logs");
    let logs = env.path("server.log");
    big_file(&logs, 6_000_000);
    env.throttle.set_down(1_000_000);
    let answered = run(env
        .device()
        .args(["inbox", "answer", &id, "--file"])
        .arg(format!("logs={}", logs.display())));
    assert!(answered.status.success(), "{answered:?}");
    let temp = wait_for_entry(&out_dir, ".herald-download-", &mut asking);
    assert_eq!(mode(&temp), 0o600, "owner-only from creation");
    asking.kill(libc::SIGINT);
    let (code, _, stderr) = asking.finish();
    env.throttle.set_down(0);
    assert_eq!(code, Some(130), "{stderr}");
    assert_eq!(
        entries(&out_dir),
        Vec::<String>::new(),
        "no partial download: {stderr}"
    );
    let resume = format!("herald wait {id} --out-dir {}", out_dir.display());
    assert!(stderr.contains(&resume), "hint {resume:?}: {stderr}");
    assert!(stderr.contains("SIGINT"), "{stderr}");
    assert_eq!(entries(env.tmp.path()), Vec::<String>::new(), "TMPDIR");

    let resumed = run(env
        .agent()
        .args(["wait", &id])
        .arg("--out-dir")
        .arg(&out_dir));
    assert_eq!(resumed.status.code(), Some(0), "{resumed:?}");
    assert_eq!(entries(&out_dir), ["server.log"]);
    assert_eq!(
        std::fs::read(out_dir.join("server.log")).unwrap(),
        std::fs::read(&logs).unwrap()
    );
}

/// `inbox save-attachment --out` through a slow link, SIGTERM mid-download: neither the
/// destination nor a temporary file stays; exit 143.
#[test]
fn sigterm_during_save_attachment_leaves_nothing() {
    let env = Env::start();
    let report = env.path("report.bin");
    big_file(&report, 6_000_000);
    let sent = ok_stdout(
        env.agent()
            .args(["send", "--title", "Report", "--file"])
            .arg(&report),
    );
    let sent: serde_json::Value = serde_json::from_str(&sent).unwrap();
    let id = sent["id"].as_str().unwrap().to_owned();
    env.wait_for_title("Report");
    let shown = ok_stdout(env.device().args(["inbox", "show", &id, "--json"]));
    let shown: serde_json::Value = serde_json::from_str(&shown).unwrap();
    let file_id = shown["attachments"][0]["id"].as_str().unwrap().to_owned();
    let saves = env.path("saves");
    std::fs::create_dir(&saves).unwrap();
    env.throttle.set_down(1_000_000);
    let mut saving = Running::spawn(
        env.device()
            .args(["inbox", "save-attachment", &id, &file_id, "--out"])
            .arg(saves.join("report.bin")),
    );
    wait_for_entry(&saves, ".herald-download-", &mut saving);
    saving.kill(libc::SIGTERM);
    let (code, _, stderr) = saving.finish();
    env.throttle.set_down(0);
    assert_eq!(code, Some(143), "{stderr}");
    assert_eq!(entries(&saves), Vec::<String>::new(), "{stderr}");
    assert!(stderr.contains("SIGTERM"), "{stderr}");
}

/// `send --file` through a slow link, SIGTERM while the ciphertext is uploaded: the private
/// `herald-upload-*` directory (0700, its file 0600) is gone from TMPDIR, nothing was sent,
/// exit 143. Then `inbox answer --file` likewise with SIGINT, exit 130.
#[test]
fn signals_during_uploads_leave_nothing_in_tmpdir() {
    let env = Env::start();
    let big = env.path("big.bin");
    big_file(&big, 4_000_000);
    env.throttle.set_up(500_000);
    let mut sending = Running::spawn(
        env.agent()
            .args(["send", "--title", "Upload", "--file"])
            .arg(&big),
    );
    let dir = wait_for_entry(env.tmp.path(), "herald-upload-", &mut sending);
    assert_eq!(mode(&dir), 0o700, "the directory is owner-only");
    let cipher = dir.join("file.age");
    let deadline = Instant::now() + PATIENCE;
    while !cipher.exists() {
        assert!(Instant::now() < deadline, "no file.age");
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(mode(&cipher), 0o600, "the ciphertext is owner-only");
    sending.kill(libc::SIGTERM);
    let (code, _, stderr) = sending.finish();
    assert_eq!(code, Some(143), "{stderr}");
    assert_eq!(entries(env.tmp.path()), Vec::<String>::new(), "{stderr}");
    env.throttle.set_up(0);
    let list = ok_stdout(env.device().args(["inbox", "list", "--json"]));
    assert_eq!(list.trim(), "[]", "nothing was sent");

    let mut asking = Running::spawn(
        env.agent()
            .args(["ask", "--title", "Send logs", "--field", "logs:file"])
            .arg("--out-dir")
            .arg(env.work.path()),
    );
    asking.wait_for_stderr("waiting for an answer");
    let id = env.wait_for_title("Send logs");
    env.throttle.set_up(500_000);
    let mut answering = Running::spawn(
        env.device()
            .args(["inbox", "answer", &id, "--file"])
            .arg(format!("logs={}", big.display())),
    );
    wait_for_entry(env.tmp.path(), "herald-upload-", &mut answering);
    answering.kill(libc::SIGINT);
    let (code, _, stderr) = answering.finish();
    assert_eq!(code, Some(130), "{stderr}");
    assert_eq!(entries(env.tmp.path()), Vec::<String>::new(), "{stderr}");
    asking.kill(libc::SIGINT);
    let (code, _, _) = asking.finish();
    assert_eq!(code, Some(130));
}

/// `ask --out` given `--relay` and `--token-file` (no environment), waiting for the answer,
/// SIGINT: the reserved 0600 file is removed, the hint names `--relay`, `--token-file` and
/// `--out`, exit 130. The hint, run literally by a shell, waits again; SIGHUP (the terminal
/// closed) removes `--out` again and repeats the hint, exit 129; the hint run once more
/// succeeds (no "already exists").
#[test]
fn signals_while_waiting_with_out_remove_it_and_the_resume_works() {
    let env = Env::start();
    let out = env.path("token");
    let token_file = env.path("tok");
    std::fs::write(&token_file, &env.token).unwrap();
    std::fs::set_permissions(&token_file, std::fs::Permissions::from_mode(0o600)).unwrap();
    let mut asking = Running::spawn(
        env.device()
            .args(["ask", "--relay", &env.throttle.url, "--token-file"])
            .arg(&token_file)
            .args(["--title", "Token please", "--field", "token:secret"])
            .arg("--out")
            .arg(&out),
    );
    asking.wait_for_stderr("waiting for an answer");
    assert_eq!(mode(&out), 0o600, "reserved");
    asking.kill(libc::SIGINT);
    let (code, _, stderr) = asking.finish();
    assert_eq!(code, Some(130), "{stderr}");
    assert!(!out.exists(), "the reserved --out is removed");
    let id = env.wait_for_title("Token please");
    let resume = format!(
        "herald wait {id} --relay {} --token-file {} --out {}",
        env.throttle.url,
        token_file.display(),
        out.display()
    );
    assert!(stderr.contains(&resume), "hint {resume:?}: {stderr}");
    assert!(!stderr.contains(&env.token), "the token is never shown");
    let hint = hint_of(&stderr);

    let waiting = Running::spawn(&mut env.shell(&hint));
    let deadline = Instant::now() + PATIENCE;
    while !out.exists() {
        assert!(Instant::now() < deadline, "wait reserves --out");
        std::thread::sleep(Duration::from_millis(10));
    }
    // The hint is registered right after the reservation, before the next await point.
    waiting.kill(libc::SIGHUP);
    let (code, _, stderr) = waiting.finish();
    assert_eq!(code, Some(129), "{stderr}");
    assert!(!out.exists(), "removed again");
    assert!(stderr.contains("interrupted by SIGHUP"), "{stderr}");
    assert!(stderr.contains(&resume), "{stderr}");

    let waiting = Running::spawn(&mut env.shell(&hint));
    let secret = env.path("value");
    std::fs::write(&secret, "s3cr3t-value").unwrap();
    let answered = run(env
        .device()
        .args(["inbox", "answer", &id, "--secret"])
        .arg(format!("token={}", secret.display())));
    assert!(answered.status.success(), "{answered:?}");
    let (code, _, stderr) = waiting.finish();
    assert_eq!(code, Some(0), "the resume collects the answer: {stderr}");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "s3cr3t-value");
}

/// The command after `Resume with: ` on the last line that has one.
fn hint_of(stderr: &str) -> String {
    stderr
        .lines()
        .rev()
        .find_map(|l| l.split("Resume with: ").nth(1))
        .expect("a resume hint")
        .trim()
        .to_owned()
}

/// `send --secret-file` prints its idempotency key as soon as the offer is sent; SIGINT then
/// hints the resume. `inbox reveal --out` waiting for the sender, SIGTERM: the reserved file
/// is removed, the hint is printed, exit 143.
#[test]
fn interrupted_secret_offer_and_reveal_hint_their_resume() {
    let env = Env::start();
    let secret = env.path("pw");
    std::fs::write(&secret, "hunter2-but-longer").unwrap();
    let mut offering = Running::spawn(
        env.agent()
            .args(["send", "--title", "Password", "--secret-file"])
            .arg(&secret),
    );
    offering.wait_for_stderr("idempotency key idk_");
    offering.kill(libc::SIGINT);
    let (code, stdout, stderr) = offering.finish();
    assert_eq!(code, Some(130), "{stderr}");
    assert!(!stdout.contains("hunter2") && !stderr.contains("hunter2"));
    let key = stderr
        .split("idempotency key ")
        .nth(1)
        .and_then(|rest| rest.split(|c: char| c == ')' || c.is_whitespace()).next())
        .expect("key printed")
        .to_owned();
    assert!(
        stderr.contains(&format!(
            "Resume with: the same command with --idempotency-key {key} added"
        )),
        "{stderr}"
    );
    assert!(
        !stderr.contains("Password"),
        "the hint does not repeat the title (message content): {stderr}"
    );
    let id = env.wait_for_title("Password");

    let out = env.path("revealed");
    let mut revealing = Running::spawn(
        env.device()
            .env_remove("HERALD_HOME")
            .args(["inbox", "reveal", &id, "--data-dir"])
            .arg(env.home.path())
            .arg("--out")
            .arg(&out),
    );
    revealing.wait_for_stderr("waiting for the sender");
    assert!(out.exists(), "reserved before the offer is opened");
    revealing.kill(libc::SIGTERM);
    let (code, _, stderr) = revealing.finish();
    assert_eq!(code, Some(143), "{stderr}");
    assert!(!out.exists(), "the reserved --out is removed");
    let resume = format!(
        "herald inbox reveal {id} --data-dir {} --out {}",
        env.home.path().display(),
        out.display()
    );
    assert!(stderr.contains(&resume), "hint {resume:?}: {stderr}");

    // Both resumes deliver the one offer; the reveal's hint is run as it was printed.
    let sending = Running::spawn(
        env.agent()
            .args(["send", "--title", "Password", "--idempotency-key", &key])
            .arg("--secret-file")
            .arg(&secret),
    );
    let revealed = run(&mut env.shell(&format!("{} --timeout 100s", hint_of(&stderr))));
    assert_eq!(revealed.status.code(), Some(0), "{revealed:?}");
    let (code, stdout, stderr) = sending.finish();
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.contains("delivered"), "{stdout}");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "hunter2-but-longer");
}

/// A resumed `send --secret-file` under the first offer's idempotency key with a different
/// file is refused (nothing delivered, the secret never printed); with the same file it
/// resumes the one offer.
#[test]
fn a_resumed_secret_offer_must_send_the_same_file() {
    let env = Env::start();
    let first = env.path("first");
    std::fs::write(&first, "first-secret-value").unwrap();
    let second = env.path("second");
    std::fs::write(&second, "second-secret-value").unwrap();
    let offered = run(env
        .agent()
        .args(["send", "--title", "Key", "--timeout", "1s", "--secret-file"])
        .arg(&first));
    assert_eq!(offered.status.code(), Some(3), "{offered:?}");
    let printed: serde_json::Value = serde_json::from_slice(&offered.stdout).unwrap();
    let id = printed["id"].as_str().unwrap().to_owned();
    let key = printed["idempotencyKey"].as_str().unwrap().to_owned();

    let other = run(env
        .agent()
        .args(["send", "--title", "Key", "--idempotency-key", &key])
        .args(["--timeout", "1s", "--secret-file"])
        .arg(&second));
    let stderr = String::from_utf8_lossy(&other.stderr).into_owned();
    assert_eq!(other.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&key) && stderr.contains("differ from the first offer"),
        "{stderr}"
    );
    assert!(stderr.contains(&second.display().to_string()), "{stderr}");
    assert!(
        !stderr.contains("secret-value"),
        "never the secret: {stderr}"
    );
    // The same file under another title: the message names the title as a possible cause,
    // not only the file.
    let retitled = run(env
        .agent()
        .args(["send", "--title", "Other", "--idempotency-key", &key])
        .args(["--timeout", "1s", "--secret-file"])
        .arg(&first));
    let err = String::from_utf8_lossy(&retitled.stderr).into_owned();
    assert_eq!(retitled.status.code(), Some(1), "{err}");
    assert!(
        err.contains("--title") && err.contains("differ from the first offer"),
        "{err}"
    );

    let same = Running::spawn(
        env.agent()
            .args(["send", "--title", "Key", "--idempotency-key", &key])
            .arg("--secret-file")
            .arg(&first),
    );
    let out = env.path("revealed");
    let revealed = run(env
        .device()
        .args(["inbox", "reveal", &id, "--timeout", "100s", "--out"])
        .arg(&out));
    assert_eq!(revealed.status.code(), Some(0), "{revealed:?}");
    let (code, stdout, stderr) = same.finish();
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.contains(&id), "the same offer: {stdout}");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "first-secret-value");
}

/// A signal while `herald` blocks reading a prompt's answer (here the recovery key of
/// `device unlock`, from a standard input that never answers) ends it at once with 130, not
/// after the 5 s a command gets to drop its files.
#[test]
fn sigint_at_a_prompt_exits_at_once() {
    let home = tempfile::tempdir().unwrap();
    let mut cmd = herald(home.path());
    cmd.args(["device", "unlock", "--relay", "http://127.0.0.1:9"])
        .stdin(Stdio::piped());
    let mut unlocking = Running::spawn(&mut cmd);
    // The data dir is opened right before the read, with no await point in between.
    wait_for_entry(home.path(), "local.key", &mut unlocking);
    let signalled = Instant::now();
    unlocking.kill(libc::SIGINT);
    let (code, _, stderr) = unlocking.finish();
    assert_eq!(code, Some(130), "{stderr}");
    assert!(
        signalled.elapsed() < Duration::from_millis(4500),
        "ended {:?} after the signal",
        signalled.elapsed()
    );
    assert!(stderr.contains("interrupted by SIGINT"), "{stderr}");
}
