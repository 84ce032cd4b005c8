//! Launch at login on Linux (docs/desktop-lifecycle.md, "Launch at login"): an XDG autostart
//! entry, `$XDG_CONFIG_HOME/autostart/Herald.desktop` (`~/.config/autostart` when the variable
//! is unset or not absolute), whose `Exec` starts Herald with `--background`.
//!
//! Written here rather than by tauri-plugin-autostart (which Herald uses on macOS and Windows):
//! its Linux writer ignores `XDG_CONFIG_HOME`, where desktops look, and puts the program's path
//! into `Exec` unquoted, so an AppImage kept in `~/My Apps/` would never start. The file name is
//! the plugin's, so an entry it wrote earlier is found, replaced and removed.

use std::io::Write as _;
use std::path::{Path, PathBuf};

/// The entry's file name (the same as the plugin's: `{app name}.desktop`).
pub const FILE_NAME: &str = "Herald.desktop";

/// Why the entry could not be read, written or removed.
#[derive(Debug, thiserror::Error)]
pub enum LoginItemError {
    /// Neither `XDG_CONFIG_HOME` nor `HOME` names an absolute directory.
    #[error("no config directory: neither XDG_CONFIG_HOME nor HOME is set")]
    NoConfigDir,
    /// The program's path cannot go into a desktop entry (it is not UTF-8 or holds a control
    /// character other than tab and newline).
    #[error("the program's path {0:?} cannot be written into a desktop entry")]
    UnwritablePath(PathBuf),
    /// Reading, writing or removing the file failed.
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Where autostart entries go for this user: the XDG Base Directory rule (an unset, empty or
/// relative `XDG_CONFIG_HOME` means `$HOME/.config`), then `autostart`.
pub fn autostart_dir(
    xdg_config_home: Option<&str>,
    home: Option<&str>,
) -> Result<PathBuf, LoginItemError> {
    fn absolute(v: Option<&str>) -> Option<&Path> {
        v.map(Path::new).filter(|p| p.is_absolute())
    }
    if let Some(config) = absolute(xdg_config_home) {
        return Ok(config.join("autostart"));
    }
    absolute(home)
        .map(|home| home.join(".config").join("autostart"))
        .ok_or(LoginItemError::NoConfigDir)
}

/// The autostart directory from this process's environment.
pub fn autostart_dir_from_env() -> Result<PathBuf, LoginItemError> {
    let xdg = std::env::var("XDG_CONFIG_HOME").ok();
    let home = std::env::var("HOME").ok();
    autostart_dir(xdg.as_deref(), home.as_deref())
}

/// One `Exec` argument as the Desktop Entry Specification wants it ("The Exec key"): `%`
/// doubled; quoted in `"…"` when it holds a reserved character, with `"`, `` ` ``, `$` and `\`
/// escaped inside; then the string-value escapes (`\` → `\\`, tab/newline/CR → `\t`/`\n`/`\r`),
/// which readers undo first. `None` for other control characters, which cannot be written.
pub fn exec_arg(arg: &str) -> Option<String> {
    const RESERVED: &[char] = &[
        ' ', '\t', '\n', '"', '\'', '\\', '>', '<', '~', '|', '&', ';', '$', '*', '?', '#', '(',
        ')', '`',
    ];
    if arg
        .chars()
        .any(|c| c.is_control() && !matches!(c, '\t' | '\n' | '\r'))
    {
        return None;
    }
    let arg = arg.replace('%', "%%");
    let quoted = if arg.is_empty() || arg.contains(RESERVED) || arg.contains('\r') {
        let mut q = String::with_capacity(arg.len() + 2);
        q.push('"');
        for c in arg.chars() {
            if matches!(c, '"' | '`' | '$' | '\\') {
                q.push('\\');
            }
            q.push(c);
        }
        q.push('"');
        q
    } else {
        arg
    };
    Some(
        quoted
            .replace('\\', "\\\\")
            .replace('\t', "\\t")
            .replace('\n', "\\n")
            .replace('\r', "\\r"),
    )
}

/// The entry's text: starts `program` with `args`, without a startup notification.
pub fn desktop_entry(program: &Path, args: &[&str]) -> Result<String, LoginItemError> {
    let unwritable = || LoginItemError::UnwritablePath(program.to_owned());
    let mut exec = exec_arg(program.to_str().ok_or_else(unwritable)?).ok_or_else(unwritable)?;
    for arg in args {
        exec.push(' ');
        exec.push_str(&exec_arg(arg).ok_or_else(unwritable)?);
    }
    Ok(format!(
        "[Desktop Entry]\n\
         Type=Application\n\
         Version=1.5\n\
         Name=Herald\n\
         Comment=Starts Herald in the background at login\n\
         Exec={exec}\n\
         Icon=herald-desktop\n\
         Terminal=false\n\
         StartupNotify=false\n\
         X-GNOME-Autostart-enabled=true\n"
    ))
}

/// Whether an entry's text starts the program: not `Hidden=true`, not switched off by the
/// desktop's startup-applications tool (`X-GNOME-Autostart-enabled=false`).
pub fn entry_enabled(text: &str) -> bool {
    let mut in_main_group = false;
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            in_main_group = line == "[Desktop Entry]";
            continue;
        }
        if !in_main_group {
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        match (key.trim(), value.trim()) {
            ("Hidden", "true") | ("X-GNOME-Autostart-enabled", "false") => return false,
            _ => {}
        }
    }
    true
}

/// The login item in `dir`.
#[derive(Debug, Clone)]
pub struct LoginItem {
    path: PathBuf,
}

impl LoginItem {
    /// The item `dir/Herald.desktop`.
    pub fn in_dir(dir: &Path) -> Self {
        LoginItem {
            path: dir.join(FILE_NAME),
        }
    }

    /// Whether the entry exists and is not switched off.
    pub fn is_enabled(&self) -> Result<bool, LoginItemError> {
        match std::fs::read_to_string(&self.path) {
            Ok(text) => Ok(entry_enabled(&text)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
            Err(source) => Err(self.io(source)),
        }
    }

    /// Writes the entry (replacing any earlier one, atomically, mode 0644) to start `program`
    /// with `args`.
    pub fn enable(&self, program: &Path, args: &[&str]) -> Result<(), LoginItemError> {
        let text = desktop_entry(program, args)?;
        let dir = self.path.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir).map_err(|source| LoginItemError::Io {
            path: dir.to_owned(),
            source,
        })?;
        // Written beside it, then renamed over it: a reader sees the old entry or the new one.
        let tmp = dir.join(format!(".{FILE_NAME}.{}.tmp", std::process::id()));
        let written =
            write_new(&tmp, text.as_bytes()).and_then(|()| std::fs::rename(&tmp, &self.path));
        if let Err(source) = written {
            let _ = std::fs::remove_file(&tmp);
            return Err(self.io(source));
        }
        Ok(())
    }

    /// Removes the entry; nothing when there is none.
    pub fn disable(&self) -> Result<(), LoginItemError> {
        match std::fs::remove_file(&self.path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(self.io(e)),
            _ => Ok(()),
        }
    }

    fn io(&self, source: std::io::Error) -> LoginItemError {
        LoginItemError::Io {
            path: self.path.clone(),
            source,
        }
    }
}

/// Creates `path` (mode 0644 on Unix; replacing a stale leftover) with `bytes`, synced.
fn write_new(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .open(path)?;
    // Readable by the session's autostart reader whatever the umask; writable only by the user.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        file.set_permissions(std::fs::Permissions::from_mode(0o644))?;
    }
    file.write_all(bytes)?;
    file.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_dir_follows_xdg_config_home_then_home() {
        assert_eq!(
            autostart_dir(Some("/x/config"), Some("/home/p")).unwrap(),
            Path::new("/x/config/autostart")
        );
        for xdg in [None, Some(""), Some("relative/dir")] {
            assert_eq!(
                autostart_dir(xdg, Some("/home/p")).unwrap(),
                Path::new("/home/p/.config/autostart"),
                "{xdg:?}"
            );
        }
        assert!(matches!(
            autostart_dir(None, None),
            Err(LoginItemError::NoConfigDir)
        ));
        assert!(matches!(
            autostart_dir(Some("rel"), Some("rel")),
            Err(LoginItemError::NoConfigDir)
        ));
    }

    #[test]
    fn plain_arguments_stay_as_they_are() {
        assert_eq!(
            exec_arg("/usr/bin/herald-desktop").unwrap(),
            "/usr/bin/herald-desktop"
        );
        assert_eq!(exec_arg("--background").unwrap(), "--background");
    }

    #[test]
    fn reserved_characters_are_quoted_and_escaped_twice() {
        assert_eq!(
            exec_arg("/home/p/My Apps/Herald.AppImage").unwrap(),
            r#""/home/p/My Apps/Herald.AppImage""#
        );
        // `$` escaped inside the quotes (\$), then that backslash escaped as a string (\\$).
        assert_eq!(exec_arg("/opt/a$b").unwrap(), r#""/opt/a\\$b""#);
        // A literal backslash: four in the file.
        assert_eq!(exec_arg(r"/opt/a\b").unwrap(), r#""/opt/a\\\\b""#);
        assert_eq!(exec_arg(r#"/opt/"x""#).unwrap(), r#""/opt/\\"x\\"""#);
        assert_eq!(exec_arg("/opt/it's").unwrap(), r#""/opt/it's""#);
        assert_eq!(exec_arg("").unwrap(), r#""""#);
    }

    #[test]
    fn percent_signs_are_doubled_so_they_are_not_field_codes() {
        assert_eq!(exec_arg("/opt/100%u").unwrap(), "/opt/100%%u");
    }

    #[test]
    fn control_characters_are_escaped_or_refused() {
        assert_eq!(exec_arg("/a\tb").unwrap(), r#""/a\tb""#);
        assert_eq!(exec_arg("/a\nb").unwrap(), r#""/a\nb""#);
        assert_eq!(exec_arg("/a\u{7}b"), None);
        assert!(matches!(
            desktop_entry(Path::new("/a\u{1b}b"), &["--background"]),
            Err(LoginItemError::UnwritablePath(_))
        ));
    }

    #[test]
    fn the_entry_starts_herald_in_the_background() {
        let text = desktop_entry(
            Path::new("/home/p/My Apps/Herald.AppImage"),
            &["--background"],
        )
        .unwrap();
        assert!(text.starts_with("[Desktop Entry]\n"), "{text}");
        assert!(
            text.contains("\nExec=\"/home/p/My Apps/Herald.AppImage\" --background\n"),
            "{text}"
        );
        assert!(text.contains("\nType=Application\n"), "{text}");
        assert!(entry_enabled(&text));
    }

    #[test]
    fn an_entry_switched_off_by_the_desktop_is_not_enabled() {
        let base = desktop_entry(Path::new("/usr/bin/herald-desktop"), &[]).unwrap();
        assert!(!entry_enabled(&base.replace(
            "X-GNOME-Autostart-enabled=true",
            "X-GNOME-Autostart-enabled=false"
        )));
        assert!(!entry_enabled(&format!("{base}Hidden=true\n")));
        // Keys of another group do not count.
        assert!(entry_enabled(&format!(
            "{base}[Desktop Action x]\nHidden=true\n"
        )));
    }

    #[test]
    fn enable_replaces_and_disable_removes() {
        let dir = tempfile::tempdir().unwrap();
        let autostart = dir.path().join("config/autostart");
        let item = LoginItem::in_dir(&autostart);
        assert!(!item.is_enabled().unwrap());
        item.disable().unwrap();
        // An entry the plugin wrote before (unquoted Exec) is replaced.
        std::fs::create_dir_all(&autostart).unwrap();
        std::fs::write(
            autostart.join(FILE_NAME),
            "[Desktop Entry]\nExec=/old path/herald-desktop --background\n",
        )
        .unwrap();
        item.enable(Path::new("/new path/herald-desktop"), &["--background"])
            .unwrap();
        assert!(item.is_enabled().unwrap());
        let text = std::fs::read_to_string(autostart.join(FILE_NAME)).unwrap();
        assert!(
            text.contains("Exec=\"/new path/herald-desktop\" --background\n"),
            "{text}"
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = std::fs::metadata(autostart.join(FILE_NAME))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o644);
        }
        // No temporary file is left beside it.
        let names: Vec<_> = std::fs::read_dir(&autostart)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, [FILE_NAME]);
        item.disable().unwrap();
        assert!(!item.is_enabled().unwrap());
        assert!(!autostart.join(FILE_NAME).exists());
    }
}
