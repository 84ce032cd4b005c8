//! Where the core listens for its window, and the token both sides prove ([`super::proof`]): the file
//! `window-link.json` in the data dir, `{"port": u16, "token": "<64 hex>"}`, written by the core
//! at start (mode 0600 inside the 0700 data dir) and removed when it quits. A launch that
//! finds no file, or nobody on its port, is the first Herald of this data dir.

use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::frame::{blocking, FrameError};
use super::{proof, Role, ToCore, ToWindow};

/// The file's name in the data dir.
pub const FILE: &str = "window-link.json";

/// How long a launch waits to reach the core and hear its answer.
const HELLO_TIMEOUT: Duration = Duration::from_secs(5);

/// The core's listening port and the token its windows present.
#[derive(Clone, Serialize, Deserialize)]
pub struct LinkAddress {
    pub port: u16,
    pub token: String,
}

impl std::fmt::Debug for LinkAddress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LinkAddress")
            .field("port", &self.port)
            .field("token", &"<redacted>")
            .finish()
    }
}

/// The link file of `data_dir`.
pub fn path(data_dir: &Path) -> PathBuf {
    data_dir.join(FILE)
}

/// A new random token (32 bytes, hex).
pub fn new_token() -> std::io::Result<String> {
    proof::random_hex()
}

/// Writes the link file (replacing an old one), readable by this user only.
pub fn write(data_dir: &Path, address: &LinkAddress) -> std::io::Result<()> {
    let json = serde_json::to_vec(address).map_err(std::io::Error::other)?;
    // A first start writes this before the core creates the data dir: made as the core makes
    // it, readable by this user only.
    let mut dir = std::fs::DirBuilder::new();
    dir.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        dir.mode(0o700);
    }
    dir.create(data_dir)?;
    let tmp = data_dir.join(format!("{FILE}.tmp"));
    let _ = std::fs::remove_file(&tmp);
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    {
        use std::io::Write;
        let mut file = options.open(&tmp)?;
        file.write_all(&json)?;
        file.sync_all()?;
    }
    std::fs::rename(&tmp, path(data_dir))
}

/// Removes the link file if it still names `port` (a newer core may have replaced it).
pub fn remove(data_dir: &Path, port: u16) {
    if read(data_dir).is_some_and(|a| a.port == port) {
        let _ = std::fs::remove_file(path(data_dir));
    }
}

/// The link file's contents, if there is a readable one.
pub fn read(data_dir: &Path) -> Option<LinkAddress> {
    let bytes = std::fs::read(path(data_dir)).ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// Why a launch could not reach a running core.
#[derive(Debug, thiserror::Error)]
pub enum HelloError {
    #[error("no Herald runs for this data dir")]
    NoCore,
    /// Something listens on the link file's port but cannot prove the token: another
    /// program on a crashed core's port. Nothing was told to it.
    #[error("the process on the link's port is not this data dir's Herald")]
    Impostor,
    #[error("the running Herald refused this launch")]
    Refused,
    #[error("the running Herald did not answer: {0}")]
    Link(#[from] FrameError),
}

/// A launch reached the running core: it is to become the window over `stream`, or it is
/// done.
#[derive(Debug)]
pub enum Hello {
    Window { stream: TcpStream, pending: u32 },
    Done,
}

/// Says hello to the core of `data_dir` (blocking, before any runtime exists): `NoCore` when
/// there is no link file or nobody listens on its port.
pub fn hello(data_dir: &Path, link: Option<String>, spawned: bool) -> Result<Hello, HelloError> {
    let address = read(data_dir).ok_or(HelloError::NoCore)?;
    let to = SocketAddr::from((Ipv4Addr::LOCALHOST, address.port));
    let mut stream =
        TcpStream::connect_timeout(&to, HELLO_TIMEOUT).map_err(|_| HelloError::NoCore)?;
    stream.set_read_timeout(Some(HELLO_TIMEOUT)).ok();
    stream.set_nodelay(true).ok();
    // The core proves the token first; only then does this launch say anything about itself.
    let nonce = proof::new_nonce().map_err(FrameError::Io)?;
    blocking::write(
        &mut stream,
        &ToCore::Challenge {
            nonce: nonce.clone(),
        },
    )?;
    let core_nonce = match blocking::read::<ToWindow>(&mut stream, super::frame::MAX_HELLO) {
        Ok(ToWindow::Proof {
            proof: answer,
            nonce: core_nonce,
        }) if proof::core_proof_ok(&address.token, &nonce, &answer) => core_nonce,
        _ => return Err(HelloError::Impostor),
    };
    let hello = ToCore::Hello {
        proof: proof::window_proof(&address.token, &core_nonce),
        link,
        spawned,
    };
    blocking::write(&mut stream, &hello)?;
    match blocking::read::<ToWindow>(&mut stream, super::frame::MAX_HELLO)? {
        ToWindow::Welcome {
            role: Role::Window,
            pending,
        } => {
            stream.set_read_timeout(None).ok();
            Ok(Hello::Window { stream, pending })
        }
        ToWindow::Welcome {
            role: Role::Done, ..
        } => Ok(Hello::Done),
        _ => Err(HelloError::Refused),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_link_file_is_private_and_removed_only_by_its_own_core() {
        let dir = tempfile::tempdir().unwrap();
        let address = LinkAddress {
            port: 4242,
            token: new_token().unwrap(),
        };
        assert_eq!(address.token.len(), 64);
        assert!(!format!("{address:?}").contains(&address.token), "redacted");
        write(dir.path(), &address).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(path(dir.path()))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        assert_eq!(read(dir.path()).unwrap().port, 4242);
        remove(dir.path(), 9999);
        assert!(read(dir.path()).is_some(), "another core's port: kept");
        remove(dir.path(), 4242);
        assert!(read(dir.path()).is_none());
        assert!(matches!(
            hello(dir.path(), None, false),
            Err(HelloError::NoCore)
        ));
    }

    /// A process on a crashed core's port (the stale link file still names it) answers a
    /// window's launch as the helper's attack did: a welcome, or a made-up proof. The launch
    /// sees it is not Herald, and all the impostor got is the challenge: no token, no link.
    #[test]
    fn an_impostor_on_the_port_learns_nothing_and_is_not_believed() {
        for answer in [
            ToWindow::Welcome {
                role: Role::Window,
                pending: 42,
            },
            ToWindow::Proof {
                proof: "00".repeat(32),
                nonce: "11".repeat(32),
            },
        ] {
            let dir = tempfile::tempdir().unwrap();
            let listener = std::net::TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).unwrap();
            let token = new_token().unwrap();
            let address = LinkAddress {
                port: listener.local_addr().unwrap().port(),
                token: token.clone(),
            };
            write(dir.path(), &address).unwrap();
            let impostor = std::thread::spawn(move || {
                let (mut stream, _) = listener.accept().unwrap();
                let first: serde_json::Value = blocking::read(&mut stream, 1 << 14).unwrap();
                blocking::write(&mut stream, &answer).unwrap();
                let mut rest = Vec::new();
                let _ = std::io::Read::read_to_end(&mut stream, &mut rest);
                (first, rest)
            });
            let outcome = hello(
                dir.path(),
                Some("herald://connect?code=WDJB-MJHT".into()),
                false,
            );
            assert!(matches!(outcome, Err(HelloError::Impostor)), "{outcome:?}");
            let (first, rest) = impostor.join().unwrap();
            assert_eq!(first["type"], "challenge", "only a challenge: {first}");
            let seen = format!("{first}{}", String::from_utf8_lossy(&rest));
            assert!(!seen.contains(&token), "the token never travels");
            assert!(!seen.contains("WDJB"), "nor the launch's link");
            assert!(rest.is_empty(), "nothing after the failed proof");
        }
    }
}
