//! How the webview draws on Linux (docs/desktop-lifecycle.md, "Rendering").
//!
//! Herald's window is text, lists and forms. WebKitGTK's accelerated compositing gives it
//! nothing to show for, and costs a GL context in every web process: on a machine without a
//! GPU driver (Mesa's llvmpipe, as in virtual machines and CI) each window start compiles
//! shaders, and the open window holds about 85 MiB more (measured in docs/benchmarks.md,
//! "Desktop in the background"). So Herald draws without compositing unless the person asks
//! for it with `HERALD_GPU=1`, and a `WEBKIT_DISABLE_COMPOSITING_MODE` already set in the
//! environment is kept as it is.

/// The variable WebKitGTK reads once, when its first web view is made: any value but `0` turns
/// accelerated compositing off.
pub const WEBKIT_COMPOSITING_VAR: &str = "WEBKIT_DISABLE_COMPOSITING_MODE";
/// `HERALD_GPU=1` keeps WebKitGTK's own choice (accelerated compositing where it can).
pub const GPU_VAR: &str = "HERALD_GPU";

/// The value to give `WEBKIT_DISABLE_COMPOSITING_MODE`, or None to leave it alone, from the
/// variable's current value and `HERALD_GPU`'s.
pub fn compositing_choice(current: Option<&str>, gpu: Option<&str>) -> Option<&'static str> {
    if current.is_some() || gpu == Some("1") {
        None
    } else {
        Some("1")
    }
}

/// Applies [`compositing_choice`] to this process's environment. Call it first in `main`,
/// before any thread starts (the environment is not safe to change once others read it).
#[cfg(target_os = "linux")]
pub fn choose_compositing() {
    let current = std::env::var(WEBKIT_COMPOSITING_VAR).ok();
    let gpu = std::env::var(GPU_VAR).ok();
    if let Some(value) = compositing_choice(current.as_deref(), gpu.as_deref()) {
        std::env::set_var(WEBKIT_COMPOSITING_VAR, value);
    }
}

/// Other platforms' webviews choose for themselves.
#[cfg(not(target_os = "linux"))]
pub fn choose_compositing() {}

#[cfg(test)]
mod tests {
    use super::compositing_choice;

    #[test]
    fn compositing_is_off_unless_asked_for_or_already_chosen() {
        assert_eq!(compositing_choice(None, None), Some("1"));
        assert_eq!(compositing_choice(None, Some("0")), Some("1"));
        assert_eq!(compositing_choice(None, Some("1")), None);
        assert_eq!(compositing_choice(Some("0"), None), None);
        assert_eq!(compositing_choice(Some("1"), Some("1")), None);
    }
}
