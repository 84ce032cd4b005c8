//! Where the CLI finds its relay, token and data dir. The token comes from HERALD_TOKEN or a
//! file with mode 0600 (never an argument, never printed); the relay from `--relay`,
//! HERALD_URL, or the desktop app's embedded relay (`<app data>/relay-url`).

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{bail, Context, Result};
use herald_crypto::ConnectionToken;

use crate::args::{AgentArgs, DataDirArgs};

/// The desktop app's identifier (its data dir name).
const DESKTOP_APP_ID: &str = "run.herald.desktop";

/// The relay URL for agent commands.
pub fn relay_url(args: &AgentArgs) -> Result<String> {
    if let Some(url) = &args.relay {
        return Ok(url.clone());
    }
    // The desktop app writes its embedded relay's URL into its data dir: HERALD_DATA_DIR when
    // the app was started with one, else the platform's app data dir.
    let app_dirs = std::env::var_os("HERALD_DATA_DIR")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .into_iter()
        .chain(dirs::data_dir().map(|d| d.join(DESKTOP_APP_ID)));
    for dir in app_dirs {
        if let Ok(text) = std::fs::read_to_string(dir.join("relay-url")) {
            let url = text.trim();
            if !url.is_empty() {
                return Ok(url.to_owned());
            }
        }
    }
    bail!("no relay: set HERALD_URL (e.g. export HERALD_URL=http://127.0.0.1:8457) or start the Herald app")
}

/// The connection token: HERALD_TOKEN, else `--token-file`, else ~/.config/herald/token.
pub fn token(args: &AgentArgs) -> Result<ConnectionToken> {
    if let Some(path) = &args.token_file {
        return token_from_file(path);
    }
    if let Ok(text) = std::env::var("HERALD_TOKEN") {
        return ConnectionToken::parse(text.trim())
            .context("HERALD_TOKEN is not a Herald connection token");
    }
    if let Some(dir) = dirs::config_dir() {
        let path = dir.join("herald").join("token");
        if path.exists() {
            return token_from_file(&path);
        }
    }
    bail!("no token: set HERALD_TOKEN or put the token in ~/.config/herald/token (mode 0600)")
}

fn token_from_file(path: &Path) -> Result<ConnectionToken> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(path)
            .with_context(|| format!("cannot read {}", path.display()))?
            .permissions()
            .mode();
        if mode & 0o077 != 0 {
            bail!(
                "{} is readable by other users (mode {:o}); run chmod 600 on it",
                path.display(),
                mode & 0o777
            );
        }
    }
    let text = zeroize::Zeroizing::new(
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?,
    );
    ConnectionToken::parse(text.trim())
        .with_context(|| format!("{} does not hold a Herald connection token", path.display()))
}

/// The headless device's data dir.
pub fn data_dir(args: &DataDirArgs) -> Result<PathBuf> {
    if let Some(dir) = &args.data_dir {
        return Ok(dir.clone());
    }
    Ok(dirs::data_dir()
        .context("no home data dir; pass --data-dir")?
        .join("herald-cli"))
}

/// Parses `90s`, `10m`, `2h`, `1d` or plain seconds.
pub fn parse_duration(text: &str) -> Result<Duration> {
    let text = text.trim();
    let (number, unit) = text.split_at(
        text.find(|c: char| !c.is_ascii_digit())
            .unwrap_or(text.len()),
    );
    let n: u64 = number
        .parse()
        .with_context(|| format!("{text:?} is not a duration like 90s, 10m or 2h"))?;
    let secs = match unit {
        "" | "s" => n,
        "m" => n * 60,
        "h" => n * 3600,
        "d" => n * 86_400,
        _ => bail!("{text:?}: unknown unit {unit:?} (use s, m, h or d)"),
    };
    Ok(Duration::from_secs(secs))
}

/// `d` in the largest unit that divides it: `2m`, `90s`, `1h`.
pub fn format_duration(d: Duration) -> String {
    let secs = d.as_secs();
    match secs {
        0 => "0s".into(),
        s if s % 3600 == 0 => format!("{}h", s / 3600),
        s if s % 60 == 0 => format!("{}m", s / 60),
        s => format!("{s}s"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("90s").unwrap().as_secs(), 90, "seconds");
        assert_eq!(parse_duration("10m").unwrap().as_secs(), 600, "minutes");
        assert_eq!(parse_duration("2h").unwrap().as_secs(), 7200, "hours");
        assert_eq!(parse_duration("45").unwrap().as_secs(), 45, "bare seconds");
        assert!(parse_duration("10x").is_err(), "unknown unit");
        assert!(parse_duration("m").is_err(), "no number");
        for text in ["90s", "2m", "1h", "0s"] {
            assert_eq!(
                format_duration(parse_duration(text).unwrap()),
                text,
                "round trip"
            );
        }
    }
}
