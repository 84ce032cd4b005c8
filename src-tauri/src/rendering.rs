//! How the webview draws on Linux (docs/desktop-lifecycle.md, "Rendering").
//!
//! Herald's window is text, lists and forms. WebKitGTK's accelerated compositing gives it
//! nothing to show for, and costs a GL context in every web process: on a machine without a
//! GPU driver (Mesa's llvmpipe, as in virtual machines and CI) each window start compiles
//! shaders, and the open window holds about 85 MiB more (measured in docs/benchmarks.md,
//! "Desktop in the background"). So Herald draws without compositing unless the person asks
//! for it with `HERALD_GPU=1`, and a `WEBKIT_DISABLE_COMPOSITING_MODE` already set in the
//! environment is kept as it is.
//!
//! Without compositing, GTK's own GL is not used either, yet GTK 3 opens it when it connects
//! to the X display: that loads the GL driver (with Mesa, LLVM), about 33 MiB of the
//! background process that never opens a window (docs/benchmarks.md). So `GDK_GL=disable` goes
//! with compositing off, unless `GDK_GL` is already set.

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

/// The variable GTK 3 reads once, when it opens the display: `disable` keeps it from loading
/// the GL driver.
pub const GDK_GL_VAR: &str = "GDK_GL";

/// The value to give `GDK_GL`, or None to leave it alone: `disable` when WebKitGTK will draw
/// without compositing (`compositing`: the value `WEBKIT_DISABLE_COMPOSITING_MODE` ends up
/// with) and `GDK_GL` is not set already.
pub fn gdk_gl_choice(compositing: Option<&str>, current: Option<&str>) -> Option<&'static str> {
    match (compositing, current) {
        (Some(value), None) if value != "0" => Some("disable"),
        _ => None,
    }
}

/// Applies [`compositing_choice`] and [`gdk_gl_choice`] to this process's environment. Call it
/// first in `main`, before any thread starts (the environment is not safe to change once
/// others read it). Programs Herald starts inherit both variables (docs/desktop-lifecycle.md).
#[cfg(target_os = "linux")]
pub fn choose_compositing() {
    let current = std::env::var(WEBKIT_COMPOSITING_VAR).ok();
    let gpu = std::env::var(GPU_VAR).ok();
    if let Some(value) = compositing_choice(current.as_deref(), gpu.as_deref()) {
        std::env::set_var(WEBKIT_COMPOSITING_VAR, value);
    }
    let compositing = std::env::var(WEBKIT_COMPOSITING_VAR).ok();
    let gdk_gl = std::env::var(GDK_GL_VAR).ok();
    if let Some(value) = gdk_gl_choice(compositing.as_deref(), gdk_gl.as_deref()) {
        std::env::set_var(GDK_GL_VAR, value);
    }
}

/// Other platforms' webviews choose for themselves.
#[cfg(not(target_os = "linux"))]
pub fn choose_compositing() {}

#[cfg(test)]
mod tests {
    use super::{compositing_choice, gdk_gl_choice};

    #[test]
    fn compositing_is_off_unless_asked_for_or_already_chosen() {
        assert_eq!(compositing_choice(None, None), Some("1"));
        assert_eq!(compositing_choice(None, Some("0")), Some("1"));
        assert_eq!(compositing_choice(None, Some("1")), None);
        assert_eq!(compositing_choice(Some("0"), None), None);
        assert_eq!(compositing_choice(Some("1"), Some("1")), None);
    }

    #[test]
    fn gtk_gl_is_off_only_with_compositing_off_and_gdk_gl_unset() {
        assert_eq!(gdk_gl_choice(Some("1"), None), Some("disable"));
        assert_eq!(gdk_gl_choice(Some("yes"), None), Some("disable"));
        assert_eq!(gdk_gl_choice(Some("0"), None), None);
        assert_eq!(gdk_gl_choice(None, None), None);
        assert_eq!(gdk_gl_choice(Some("1"), Some("always")), None);
    }
}
