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
        return checked_relay(url, "--relay (HERALD_URL)");
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
                let file = dir.join("relay-url");
                return checked_relay(url, &format!("the desktop app's {}", file.display()));
            }
        }
    }
    bail!("no relay: set HERALD_URL (e.g. export HERALD_URL=http://127.0.0.1:8457) or start the Herald app")
}

/// The relay of `herald device init|unlock|pair` (`command`): `--relay`, else HERALD_URL
/// (clap reads both into one value); refused when neither is given.
pub fn device_relay(relay: Option<String>, command: &str) -> Result<String> {
    let relay = relay.filter(|r| !r.trim().is_empty()).with_context(|| {
        format!("no relay: pass `herald device {command} --relay URL` or set HERALD_URL (e.g. export HERALD_URL=http://127.0.0.1:8457)")
    })?;
    checked_relay(&relay, "--relay (HERALD_URL)")
}

/// `url` checked under the one base-URL rule ([`herald_protocol::base_url`]) before any
/// request: `source` names where it came from. The error names the value and what is
/// expected (`http(s)://host[:port]`, no spaces).
fn checked_relay(url: &str, source: &str) -> Result<String> {
    match herald_protocol::base_url::parse_base_url("relay URL", url) {
        Ok(_) => Ok(url.to_owned()),
        Err(e) => bail!("{source}: {e}"),
    }
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

/// `--idempotency-key`, checked against the protocol's rule before anything is read or sent.
pub fn idempotency_key(given: Option<&str>) -> Result<Option<String>> {
    let Some(key) = given else { return Ok(None) };
    if let Err(rule) = herald_protocol::wire::check_idempotency_key(key) {
        bail!("--idempotency-key {key:?} is not a valid key: it must be {rule}");
    }
    Ok(Some(key.to_owned()))
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

/// The longest `--timeout` of `ask`, `wait`, `send --secret-file` and `inbox reveal`: 30
/// days (a request lives at most 24 h; `herald wait` resumes past any timeout).
pub const MAX_TIMEOUT: Duration = Duration::from_secs(30 * 86_400);

/// Parses `90s`, `10m`, `2h`, `1d` or plain seconds, for the flag `flag` (named in every
/// error), and refuses a duration outside `min..=max` — also one too large for any
/// arithmetic (`999999999999999d`), which is refused, never wrapped.
pub fn parse_duration(flag: &str, text: &str, min: Duration, max: Duration) -> Result<Duration> {
    let range = || {
        format!(
            "between {} and {}",
            format_duration(min),
            format_duration(max)
        )
    };
    let trimmed = text.trim();
    let (number, unit) = trimmed.split_at(
        trimmed
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(trimmed.len()),
    );
    let per_unit: u64 = match unit {
        "" | "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        // `-1s`, `1.5h`: no digits first, or more than the one unit letter after them.
        _ if number.is_empty() => bail!("{flag} {text:?} is not a duration: a duration is a positive whole number with a unit, like 90s, 10m, 2h or 1d"),
        _ => bail!("{flag} {text:?}: unknown unit {unit:?} (a duration is a positive whole number with a unit: s, m, h or d, e.g. 90s, 10m, 2h)"),
    };
    if number.is_empty() {
        bail!("{flag} {text:?} is not a duration: a duration is a positive whole number with a unit, like 90s, 10m, 2h or 1d");
    }
    // All digits: a parse error is an overflow of u64.
    let secs = number
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(per_unit))
        .map(Duration::from_secs)
        .filter(|d| *d <= max)
        .with_context(|| format!("{flag} {text:?} is too long: it must be {}", range()))?;
    if secs < min {
        bail!("{flag} {text:?} is too short: it must be {}", range());
    }
    Ok(secs)
}

/// [`parse_duration`] for a `--timeout`: 0s to [`MAX_TIMEOUT`].
pub fn parse_timeout(flag: &str, text: &str) -> Result<Duration> {
    parse_duration(flag, text, Duration::ZERO, MAX_TIMEOUT)
}

/// `d` in the largest unit that divides it: `2m`, `90s`, `1h`, `24h`, `30d` (days past one).
pub fn format_duration(d: Duration) -> String {
    let secs = d.as_secs();
    match secs {
        0 => "0s".into(),
        s if s > 86_400 && s % 86_400 == 0 => format!("{}d", s / 86_400),
        s if s % 3600 == 0 => format!("{}h", s / 3600),
        s if s % 60 == 0 => format!("{}m", s / 60),
        s => format!("{s}s"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY: Duration = Duration::from_secs(86_400);

    fn parse(text: &str) -> Result<Duration> {
        parse_duration("--timeout", text, Duration::ZERO, DAY)
    }

    #[test]
    fn durations() {
        assert_eq!(parse("90s").unwrap().as_secs(), 90, "seconds");
        assert_eq!(parse("10m").unwrap().as_secs(), 600, "minutes");
        assert_eq!(parse("2h").unwrap().as_secs(), 7200, "hours");
        assert_eq!(parse("1d").unwrap().as_secs(), 86_400, "days");
        assert_eq!(parse("45").unwrap().as_secs(), 45, "bare seconds");
        assert!(parse("10x").is_err(), "unknown unit");
        assert!(parse("m").is_err(), "no number");
        assert!(parse("").is_err(), "nothing");
        for text in ["90s", "2m", "1h", "0s"] {
            assert_eq!(format_duration(parse(text).unwrap()), text, "round trip");
        }
    }

    #[test]
    fn huge_durations_are_refused_naming_the_flag_and_range() {
        for text in [
            "999999999999999d",
            "213503982334602d",
            "18446744073709551615m",
            "99999999999999999999999",
            "25h",
        ] {
            let e = parse(text).unwrap_err().to_string();
            assert!(e.contains("--timeout"), "{e}");
            assert!(e.contains("between 0s and 24h"), "{e}");
        }
        let e = parse_duration("--deadline", "0s", Duration::from_secs(1), DAY)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("too short") && e.contains("between 1s and 24h"),
            "{e}"
        );
    }

    proptest::proptest! {
        /// Any text: an error or a duration within the range, never a panic.
        #[test]
        fn any_text_parses_within_range_or_is_refused(text in "\\PC*") {
            if let Ok(d) = parse(&text) {
                proptest::prop_assert!(d <= DAY);
            }
        }

        /// Any number with any unit: exact when it fits, refused (not wrapped) when not.
        #[test]
        fn numbers_never_wrap(n in proptest::num::u64::ANY, unit in "[smhd]?") {
            let per = match unit.as_str() { "m" => 60u128, "h" => 3600, "d" => 86_400, _ => 1 };
            let want = u128::from(n) * per;
            match parse(&format!("{n}{unit}")) {
                Ok(d) => proptest::prop_assert_eq!(u128::from(d.as_secs()), want),
                Err(_) => proptest::prop_assert!(want > 86_400),
            }
        }
    }
}
