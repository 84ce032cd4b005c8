//! The updater for real: tauri-plugin-updater on the mock runtime, configured like the app
//! (tauri.conf.json's `plugins.updater`, with a throwaway key pair and a loopback endpoint),
//! against an update server on 127.0.0.1:0 that serves Tauri's static manifest and a package
//! signed the way `cargo tauri build` signs (minisign, the version in the trusted comment).
//! Nothing is ever installed: the tests stop at the verified download.

use std::sync::{Arc, Mutex};

use axum::extract::State as AxumState;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use chrono::TimeZone;
use data_encoding::BASE64;
use serde_json::{json, Value};
use tauri::test::{mock_builder, mock_context, noop_assets, MockRuntime};
use tauri::Manager;

use super::*;

/// The package the server offers (any bytes: the updater verifies, it does not parse, before
/// installing).
const PACKAGE: &[u8] = b"!<arch>\ndebian-binary   a Herald 0.2.0 package, for the test";

/// One signing key, encoded as tauri.conf.json and the bundler encode them.
struct Key {
    public: String,
    secret: minisign::SecretKey,
}

impl Key {
    fn generate() -> Self {
        let pair = minisign::KeyPair::generate_unencrypted_keypair().expect("key pair");
        let public_box = pair.pk.to_box().expect("public key box").into_string();
        Key {
            public: BASE64.encode(public_box.as_bytes()),
            secret: pair.sk,
        }
    }

    /// The `.sig` file the Tauri CLI writes next to a package, base64 as the manifest carries it.
    fn sign(&self, data: &[u8], version: &str) -> String {
        let trusted =
            format!("timestamp:1772359200\tfile:Herald_{version}_amd64.deb\tversion:{version}");
        let signature = minisign::sign(
            None,
            &self.secret,
            std::io::Cursor::new(data),
            Some(&trusted),
            Some("signature from tauri secret key"),
        )
        .expect("signed");
        BASE64.encode(signature.into_string().as_bytes())
    }
}

/// What the update server serves: the manifest (raw, so tests can break it) and the package.
#[derive(Clone)]
struct Served {
    manifest: Arc<Mutex<String>>,
    package: Arc<Mutex<Vec<u8>>>,
}

async fn manifest(AxumState(served): AxumState<Served>) -> Response {
    let body = served.manifest.lock().expect("lock").clone();
    ([(header::CONTENT_TYPE, "application/json")], body).into_response()
}

async fn package(AxumState(served): AxumState<Served>) -> Response {
    let body = served.package.lock().expect("lock").clone();
    (StatusCode::OK, body).into_response()
}

/// An update server on 127.0.0.1:0 (started inside the Tauri runtime, bound before this
/// returns: no waiting for start-up).
struct UpdateServer {
    base: String,
    served: Served,
}

impl UpdateServer {
    fn start() -> Self {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
        listener.set_nonblocking(true).expect("nonblocking");
        let base = format!("http://{}", listener.local_addr().expect("address"));
        let served = Served {
            manifest: Arc::new(Mutex::new(String::new())),
            package: Arc::new(Mutex::new(PACKAGE.to_vec())),
        };
        let router = Router::new()
            .route("/latest.json", get(manifest))
            .route("/Herald_0.2.0_amd64.deb", get(package))
            .with_state(served.clone());
        tauri::async_runtime::spawn(async move {
            let listener = tokio::net::TcpListener::from_std(listener).expect("tokio listener");
            axum::serve(listener, router).await.expect("update server");
        });
        UpdateServer { base, served }
    }

    fn endpoint(&self) -> String {
        format!("{}/latest.json", self.base)
    }

    /// Publishes `version` for this platform with `signature`, in Tauri's static format.
    fn publish(&self, version: &str, signature: &str) {
        let platform = tauri_plugin_updater::target().expect("a platform the updater supports");
        let manifest = json!({
            "version": version,
            "notes": "Faster sync.\nFixes the tray icon.",
            "pub_date": "2026-03-01T10:00:00Z",
            "platforms": {
                platform: {
                    "url": format!("{}/Herald_0.2.0_amd64.deb", self.base),
                    "signature": signature,
                }
            }
        });
        self.publish_raw(&manifest.to_string());
    }

    fn publish_raw(&self, manifest: &str) {
        *self.served.manifest.lock().expect("lock") = manifest.to_owned();
    }

    fn replace_package(&self, bytes: &[u8]) {
        *self.served.package.lock().expect("lock") = bytes.to_vec();
    }
}

/// The app's own `plugins.updater` config with the test's key and endpoint; plain http is
/// allowed here only (the loopback server has no TLS).
fn updater_config(public_key: &str, endpoint: &str) -> Value {
    let app_config: Value =
        serde_json::from_str(include_str!("../../../tauri.conf.json")).expect("tauri.conf.json");
    let mut updater = app_config["plugins"]["updater"].clone();
    assert_eq!(
        updater["requireSignedVersion"],
        json!(true),
        "the app requires the signature to name the version"
    );
    updater["pubkey"] = json!(public_key);
    updater["endpoints"] = json!([endpoint]);
    updater["dangerousInsecureTransportProtocol"] = json!(true);
    updater
}

/// The mock app (version 0.1.0) with the updater plugin and our update state in `data_dir`.
fn app(public_key: &str, endpoint: &str, data_dir: &std::path::Path) -> tauri::App<MockRuntime> {
    let mut context = mock_context(noop_assets());
    context
        .config_mut()
        .plugins
        .0
        .insert("updater".into(), updater_config(public_key, endpoint));
    mock_builder()
        .plugin(tauri_plugin_updater::Builder::new().build())
        .plugin(init(Some(data_dir.to_path_buf())))
        .build(context)
        .expect("the app builds with the updater")
}

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 3, 2, 9, 0, 0)
        .single()
        .expect("valid time")
}

/// A running app and update server; `run` drives one async scenario against them.
struct World {
    app: tauri::App<MockRuntime>,
    server: UpdateServer,
    key: Key,
    dir: tempfile::TempDir,
}

impl World {
    fn new() -> Self {
        let key = Key::generate();
        let server = UpdateServer::start();
        let dir = tempfile::tempdir().expect("temp dir");
        let app = app(&key.public, &server.endpoint(), dir.path());
        World {
            app,
            server,
            key,
            dir,
        }
    }

    fn updates(&self) -> tauri::State<'_, Updates> {
        self.app.state::<Updates>()
    }

    /// Checks through the plugin as configured, like `check_for_update`.
    async fn check(&self) -> Result<UpdateCheck, UpdateError> {
        let updater = configured_updater(self.app.handle())?;
        self.updates().check_with(&updater, now()).await
    }

    /// Checks, then downloads and verifies, like `install_update` up to the install.
    async fn check_and_download(&self) -> Result<Vec<u8>, UpdateError> {
        self.check().await?;
        Ok(self.updates().download_found().await?.1)
    }
}

#[test]
fn a_signed_update_is_found_downloaded_and_verified() {
    let world = World::new();
    world
        .server
        .publish("0.2.0", &world.key.sign(PACKAGE, "0.2.0"));
    tauri::async_runtime::block_on(async {
        let found = world.check().await.expect("the check answers");
        assert_eq!(
            found,
            UpdateCheck {
                available: true,
                current_version: "0.1.0".into(),
                version: Some("0.2.0".into()),
                notes: Some("Faster sync.\nFixes the tray icon.".into()),
                date: Some("2026-03-01T10:00:00Z".into()),
                checked_at: "2026-03-02T09:00:00Z".into(),
            },
            "the manifest's version, notes and date reach the UI"
        );
        let (update, bytes) = world
            .updates()
            .download_found()
            .await
            .expect("the package verifies against the configured key");
        assert_eq!(bytes, PACKAGE, "the served package, byte for byte");
        assert_eq!(update.version, "0.2.0", "the version that was shown");
    });
    let settings = world.updates().settings();
    assert_eq!(
        settings.last_checked_at.as_deref(),
        Some("2026-03-02T09:00:00Z"),
        "the check is remembered"
    );
    assert_eq!(
        settings.last_check.map(|c| c.available),
        Some(true),
        "Settings can show what it found"
    );
}

#[test]
fn the_same_version_is_no_update_and_there_is_nothing_to_install() {
    let world = World::new();
    world
        .server
        .publish("0.1.0", &world.key.sign(PACKAGE, "0.1.0"));
    tauri::async_runtime::block_on(async {
        let found = world.check().await.expect("the check answers");
        assert!(!found.available, "0.1.0 is what runs: {found:?}");
        assert_eq!(found.version, None, "no version offered");
        let Err(error) = world.updates().download_found().await else {
            panic!("nothing found, yet something to download");
        };
        assert_eq!(error.code().as_str(), "update_not_checked", "{error}");
    });
}

/// The signature checks, each refused with our code and a sentence a person understands; the
/// plugin's own text (crate names, "minisign") never reaches the UI.
#[test]
fn packages_that_are_not_genuine_are_refused() {
    let world = World::new();
    let other_key = Key::generate();
    let genuine = world.key.sign(PACKAGE, "0.2.0");
    let corrupted = {
        let mut text =
            String::from_utf8(BASE64.decode(genuine.as_bytes()).expect("base64")).expect("utf-8");
        // The second line is the signature itself: flip one of its characters.
        let at = text.find('\n').expect("two lines") + 20;
        let flipped = if &text[at..=at] == "A" { "B" } else { "A" };
        text.replace_range(at..=at, flipped);
        BASE64.encode(text.as_bytes())
    };
    let cases = [
        (
            "signed by another key",
            other_key.sign(PACKAGE, "0.2.0"),
            "update_bad_signature",
        ),
        ("a corrupted signature", corrupted, "update_bad_signature"),
        (
            "not a signature at all",
            "bm90IGEgc2lnbmF0dXJl".to_owned(),
            "update_bad_signature",
        ),
        (
            "signed for another version",
            world.key.sign(PACKAGE, "0.1.5"),
            "update_version_mismatch",
        ),
    ];
    tauri::async_runtime::block_on(async {
        for (case, signature, code) in cases {
            world.server.publish("0.2.0", &signature);
            let Err(error) = world.check_and_download().await else {
                panic!("{case}: accepted");
            };
            let ui = UiError::from(error);
            assert_eq!(ui.code, code, "{case}: {ui:?}");
            assert!(
                ui.message.starts_with("The update was refused")
                    && ui.message.ends_with("Nothing was installed."),
                "{case}: a clear message: {}",
                ui.message
            );
            assert!(
                !ui.message.contains("minisign"),
                "{case}: no crate names: {}",
                ui.message
            );
        }

        // A genuine signature over bytes that changed on the way.
        world.server.publish("0.2.0", &genuine);
        world
            .server
            .replace_package(b"!<arch>\nsomething else entirely");
        let error = world
            .check_and_download()
            .await
            .expect_err("tampered package");
        assert_eq!(error.code().as_str(), "update_bad_signature", "{error}");
    });
}

#[test]
fn server_faults_are_named() {
    let world = World::new();
    tauri::async_runtime::block_on(async {
        world.server.publish_raw("{ this is not json");
        let error = world.check().await.expect_err("not a manifest");
        assert_eq!(error.code().as_str(), "update_bad_manifest", "{error}");

        world
            .server
            .publish_raw(&json!({ "version": "0.2.0", "platforms": {} }).to_string());
        let error = world.check().await.expect_err("no build for this platform");
        assert_eq!(error.code().as_str(), "update_no_build", "{error}");
        assert!(
            error.to_string().contains("linux") || !cfg!(target_os = "linux"),
            "names the platform looked for: {error}"
        );
    });

    // Nobody listens on a port that was just closed.
    let closed = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        listener.local_addr().expect("address")
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let app = app(
        &world.key.public,
        &format!("http://{closed}/latest.json"),
        dir.path(),
    );
    tauri::async_runtime::block_on(async {
        let updater = configured_updater(app.handle()).expect("updater");
        let error = app
            .state::<Updates>()
            .check_with(&updater, now())
            .await
            .expect_err("unreachable");
        assert_eq!(error.code().as_str(), "update_unreachable", "{error}");
        assert!(
            error
                .to_string()
                .starts_with("Could not reach the update server"),
            "{error}"
        );
    });
    assert_eq!(
        app.state::<Updates>().settings().last_checked_at,
        None,
        "a check that reached nobody is not recorded as one"
    );
}

/// A development build (the test binary is one) never replaces itself, even with a genuine
/// update waiting: the plugin would otherwise overwrite the executable as if it were an
/// AppImage.
#[cfg(not(target_os = "macos"))]
#[test]
fn a_development_build_does_not_install_over_itself() {
    let world = World::new();
    world
        .server
        .publish("0.2.0", &world.key.sign(PACKAGE, "0.2.0"));
    tauri::async_runtime::block_on(async {
        world.check().await.expect("found");
        let error = install(world.app.handle(), &world.updates())
            .await
            .expect_err("not a packaged installation");
        assert_eq!(error.code().as_str(), "update_not_installable", "{error}");
    });
}

#[test]
fn the_daily_check_is_a_device_setting() {
    let world = World::new();
    assert!(world.updates().settings().auto_check, "on by default");
    let off = world.updates().set_auto_check(false).expect("saved");
    assert!(!off.auto_check, "switched off");
    assert_eq!(
        world.updates().due_in(now()),
        None,
        "no automatic check while off"
    );

    // A new start reads the same file.
    let dir = world.dir.path();
    let reopened = Updates::open(dir, "0.1.0".into());
    assert!(!reopened.settings().auto_check, "kept across restarts");
}
