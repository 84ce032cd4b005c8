//! The tray icon (docs/desktop-lifecycle.md). On Linux a StatusNotifierItem over D-Bus (the
//! `tray-icon` crate's `ksni` backend, which Tauri's tray uses when that feature is on); on
//! macOS a menu-bar item; on Windows a notification-area icon.
//!
//! - The icon carries a dot while requests wait; the tooltip says how many.
//! - A left click opens the window (platforms that report clicks); the menu: Open Herald, the
//!   newest pending requests (each opens its card), Pause notifications (1 hour / until
//!   tomorrow / resume), Quit Herald.
//! - With previews off (Settings → Notifications) a request is listed by its sender and
//!   "Needs your reply", as its banner is, never by its title.
//!
//! Without a tray host (a bare X server, a desktop with no StatusNotifierItem support) the
//! icon is simply not seen: Herald keeps running and is reopened by launching it again.

use std::sync::Mutex;
use std::time::Duration;

use chrono::{DateTime, Local, Utc};
use herald_client::view::{MessageSummary, PendingRequests};
use tauri::image::Image;
use tauri::menu::{IsMenuItem, Menu, MenuEvent, MenuItem, PredefinedMenuItem, Submenu};
use tauri::tray::{MouseButton, MouseButtonState, TrayIconBuilder, TrayIconEvent};
use tauri::{AppHandle, Manager, Runtime};

use crate::pause::{Pause, PauseFor};
use crate::targets::OpenTarget;
use crate::window::open_soon;

/// How many pending requests the tray menu lists.
pub const TRAY_LISTED: usize = 5;

/// The tray icon's id.
const TRAY_ID: &str = "herald";
/// Longest label of a listed request, in characters.
const MAX_LABEL: usize = 48;
/// The app icon drawn in the tray.
const ICON_PNG: &[u8] = include_bytes!("../../icons/32x32.png");

/// One entry of the tray menu, before it becomes a platform menu (tested without a tray host).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    Item {
        id: String,
        text: String,
        enabled: bool,
    },
    Separator,
    Submenu {
        text: String,
        items: Vec<Entry>,
    },
}

fn item(id: &str, text: impl Into<String>) -> Entry {
    Entry::Item {
        id: id.to_owned(),
        text: text.into(),
        enabled: true,
    }
}

fn label(text: impl Into<String>) -> Entry {
    Entry::Item {
        id: String::new(),
        text: text.into(),
        enabled: false,
    }
}

/// The menu for `pending` requests, a pause ending at `paused_until` (local time), and the
/// previews setting.
pub fn model(
    pending: &PendingRequests,
    paused_until: Option<DateTime<Local>>,
    previews: bool,
) -> Vec<Entry> {
    let mut menu = vec![item("open", "Open Herald"), Entry::Separator];
    match pending.count {
        0 => menu.push(label("Nothing waits for you")),
        1 => menu.push(label("1 request waits for you")),
        n => menu.push(label(format!("{n} requests wait for you"))),
    }
    for m in pending.newest.iter().take(TRAY_LISTED) {
        menu.push(item(&format!("msg:{}", m.id), request_label(m, previews)));
    }
    if pending.count as usize > pending.newest.len().min(TRAY_LISTED) {
        menu.push(item("inbox", "All requests…"));
    }
    menu.push(Entry::Separator);
    match paused_until {
        Some(until) => {
            menu.push(label(format!(
                "Notifications paused until {}",
                until.format("%H:%M")
            )));
            menu.push(item("resume", "Resume notifications"));
        }
        None => menu.push(Entry::Submenu {
            text: "Pause notifications".into(),
            items: vec![
                item("pause:hour", "For 1 hour"),
                item("pause:tomorrow", "Until tomorrow, 08:00"),
            ],
        }),
    }
    menu.push(Entry::Separator);
    menu.push(item("quit", "Quit Herald"));
    menu
}

fn request_label(m: &MessageSummary, previews: bool) -> String {
    let text = if previews && !m.title.trim().is_empty() {
        format!("{} — {}", m.title.trim(), m.sender_name)
    } else {
        format!("{}: Needs your reply", m.sender_name)
    };
    let mut cut: String = text.chars().take(MAX_LABEL).collect();
    if text.chars().count() > MAX_LABEL {
        cut.push('…');
    }
    // Menus treat `_` or `&` as mnemonics on some platforms: keep them literal.
    cut.replace('&', "&&")
}

/// The tooltip for `count` waiting requests and a pause.
pub fn tooltip(count: u32, paused_until: Option<DateTime<Local>>) -> String {
    let waiting = match count {
        0 => "Herald — nothing waits for you".to_owned(),
        1 => "Herald — 1 request waits for you".to_owned(),
        n => format!("Herald — {n} requests wait for you"),
    };
    match paused_until {
        Some(until) => format!(
            "{waiting} (notifications paused until {})",
            until.format("%H:%M")
        ),
        None => waiting,
    }
}

/// What the tray shows last, to rebuild the menu when the pause changes.
#[derive(Debug, Default)]
struct Shown(Mutex<PendingRequests>);

/// When to try again after the tray could not be created: a panel started after Herald (launch
/// at login) registers its StatusNotifierWatcher a little later.
const RETRIES: [Duration; 3] = [
    Duration::from_secs(10),
    Duration::from_secs(60),
    Duration::from_secs(300),
];

/// Creates the tray icon. A failure (no tray host on this desktop) is logged and tried again
/// a few times ([`RETRIES`]); Herald runs on without it.
pub fn create<R: Runtime>(app: &AppHandle<R>) {
    app.manage(Shown::default());
    let Err(error) = build(app) else {
        return;
    };
    tracing::warn!(%error, "no tray icon yet");
    let app = app.clone();
    tauri::async_runtime::spawn(async move {
        for wait in RETRIES {
            tokio::time::sleep(wait).await;
            // Building waits for the event loop: off the runtime's workers.
            let handle = app.clone();
            match tauri::async_runtime::spawn_blocking(move || build(&handle)).await {
                Ok(Ok(())) => return redraw_soon(&app),
                Ok(Err(error)) => tracing::debug!(%error, "still no tray icon"),
                Err(error) => tracing::debug!(%error, "still no tray icon"),
            }
        }
        tracing::warn!("no tray icon: this desktop shows no StatusNotifierItem");
    });
}

fn build<R: Runtime>(app: &AppHandle<R>) -> tauri::Result<()> {
    let menu = build_menu(app, &model(&PendingRequests::default(), None, true))?;
    TrayIconBuilder::with_id(TRAY_ID)
        .icon(icon(false))
        .tooltip(tooltip(0, None))
        .title("Herald")
        .menu(&menu)
        .show_menu_on_left_click(false)
        .on_menu_event(on_menu)
        .on_tray_icon_event(|tray, event| {
            if let TrayIconEvent::Click {
                button: MouseButton::Left,
                button_state: MouseButtonState::Up,
                ..
            } = event
            {
                open_soon(tray.app_handle(), None);
            }
        })
        .build(app)?;
    tracing::info!("tray icon created");
    Ok(())
}

/// Shows `pending` in the tray (attention.rs calls it after every burst of events).
pub fn show_pending<R: Runtime>(app: &AppHandle<R>, pending: PendingRequests) {
    if let Some(shown) = app.try_state::<Shown>() {
        *shown.0.lock().unwrap_or_else(|p| p.into_inner()) = pending;
    }
    redraw(app);
}

/// Redraws the tray on the event loop's thread (posted, not waited for): after the
/// notification settings changed (previews decide what the menu may say), or a pause ended.
pub fn redraw_soon<R: Runtime>(app: &AppHandle<R>) {
    let handle = app.clone();
    let _ = app.run_on_main_thread(move || redraw(&handle));
}

fn redraw<R: Runtime>(app: &AppHandle<R>) {
    let (Some(tray), Some(shown)) = (app.tray_by_id(TRAY_ID), app.try_state::<Shown>()) else {
        return;
    };
    let pending = shown.0.lock().unwrap_or_else(|p| p.into_inner()).clone();
    let paused = app
        .try_state::<Pause>()
        .and_then(|p| p.until(Utc::now()))
        .map(|t| t.with_timezone(&Local));
    let previews = app
        .try_state::<crate::state::AppState>()
        .map(|s| herald_client::notification_settings::load(&s.data_dir).previews)
        .unwrap_or(false);
    let menu = build_menu(app, &model(&pending, paused, previews));
    match menu {
        Ok(menu) => {
            let _ = tray.set_menu(Some(menu));
        }
        Err(error) => tracing::warn!(%error, "could not build the tray menu"),
    }
    let _ = tray.set_tooltip(Some(tooltip(pending.count, paused)));
    let _ = tray.set_icon(Some(icon(pending.count > 0)));
}

fn on_menu<R: Runtime>(app: &AppHandle<R>, event: MenuEvent) {
    let id = event.id().as_ref();
    match id {
        "open" => open_soon(app, None),
        "inbox" => open_soon(app, Some(OpenTarget::Inbox)),
        "quit" => crate::closing::quit_app(app, "the tray"),
        "pause:hour" => set_pause(app, Some(PauseFor::OneHour)),
        "pause:tomorrow" => set_pause(app, Some(PauseFor::UntilTomorrow)),
        "resume" => set_pause(app, None),
        _ => {
            if let Some(message_id) = id.strip_prefix("msg:") {
                let target = OpenTarget::Message {
                    id: message_id.to_owned(),
                    notice: None,
                };
                open_soon(app, Some(target));
            }
        }
    }
}

fn set_pause<R: Runtime>(app: &AppHandle<R>, length: Option<PauseFor>) {
    let Some(pause) = app.try_state::<Pause>() else {
        return;
    };
    match length {
        Some(length) => {
            let until = pause.pause(length, Utc::now());
            tracing::info!(%until, "notifications paused");
            // The menu and tooltip stop saying "paused" when it ends (the notifier sums up
            // what it held back on its own).
            let app = app.clone();
            tauri::async_runtime::spawn(async move {
                let left = (until - Utc::now()).to_std().unwrap_or_default();
                tokio::time::sleep(left + Duration::from_secs(1)).await;
                redraw_soon(&app);
            });
        }
        None => {
            pause.resume();
            tracing::info!("notifications resumed");
        }
    }
    if let Some(notifier) = app.try_state::<crate::notify::Notifier>() {
        notifier.recheck();
    }
    redraw(app);
}

fn build_menu<R: Runtime>(app: &AppHandle<R>, entries: &[Entry]) -> tauri::Result<Menu<R>> {
    let menu = Menu::new(app)?;
    for entry in entries {
        append(app, entry, &|i| menu.append(i))?;
    }
    Ok(menu)
}

fn append<R: Runtime>(
    app: &AppHandle<R>,
    entry: &Entry,
    add: &dyn Fn(&dyn IsMenuItem<R>) -> tauri::Result<()>,
) -> tauri::Result<()> {
    match entry {
        Entry::Item { id, text, enabled } => add(&MenuItem::with_id(
            app,
            id.as_str(),
            text,
            *enabled,
            None::<&str>,
        )?),
        Entry::Separator => add(&PredefinedMenuItem::separator(app)?),
        Entry::Submenu { text, items } => {
            let sub = Submenu::new(app, text, true)?;
            for entry in items {
                append(app, entry, &|i| sub.append(i))?;
            }
            add(&sub)
        }
    }
}

/// The app icon, with a dot in its top-right corner while requests wait.
fn icon(dot: bool) -> Image<'static> {
    let base = match Image::from_bytes(ICON_PNG) {
        Ok(image) => image,
        Err(_) => return Image::new_owned(vec![0; 4], 1, 1),
    };
    let (width, height) = (base.width(), base.height());
    let mut rgba = base.rgba().to_vec();
    if dot {
        paint_dot(&mut rgba, width, height);
    }
    Image::new_owned(rgba, width, height)
}

/// Paints a filled red circle, a third of the icon across, into its top-right corner.
fn paint_dot(rgba: &mut [u8], width: u32, height: u32) {
    let r = (width.min(height) as f32) / 6.0;
    let (cx, cy) = (width as f32 - r - 0.5, r + 0.5);
    for y in 0..height {
        for x in 0..width {
            let (dx, dy) = (x as f32 + 0.5 - cx, y as f32 + 0.5 - cy);
            if dx * dx + dy * dy <= r * r {
                let i = ((y * width + x) * 4) as usize;
                if let Some(px) = rgba.get_mut(i..i + 4) {
                    px.copy_from_slice(&[0xE5, 0x3E, 0x3E, 0xFF]);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use herald_client::view::{MessageKind, MessageStatus};

    use super::*;

    fn request(id: &str, title: &str) -> MessageSummary {
        MessageSummary {
            id: id.into(),
            revision: 1,
            title: title.into(),
            sender_name: "deploy-bot".into(),
            sender_id: Some("con_1".into()),
            created_at: "2026-12-04T10:00:00.000Z".into(),
            expires_at: None,
            status: MessageStatus::Pending,
            expects_answer: true,
            unread: true,
            error: None,
            thread_id: id.into(),
            thread_sequence: 0,
            reply_to: None,
            kind: MessageKind::Message,
        }
    }

    fn ids(menu: &[Entry]) -> Vec<String> {
        menu.iter()
            .flat_map(|e| match e {
                Entry::Item { id, .. } if !id.is_empty() => vec![id.clone()],
                Entry::Submenu { items, .. } => ids(items),
                _ => vec![],
            })
            .collect()
    }

    #[test]
    fn the_menu_lists_the_newest_requests_and_the_way_out() {
        let pending = PendingRequests {
            count: 7,
            newest: (0..5)
                .map(|i| request(&format!("msg_{i}"), &format!("Deploy {i}?")))
                .collect(),
            next_expiry: None,
        };
        let menu = model(&pending, None, true);
        assert_eq!(
            ids(&menu),
            [
                "open",
                "msg:msg_0",
                "msg:msg_1",
                "msg:msg_2",
                "msg:msg_3",
                "msg:msg_4",
                "inbox",
                "pause:hour",
                "pause:tomorrow",
                "quit"
            ]
        );
        assert!(menu.contains(&label("7 requests wait for you")));
        assert!(menu.contains(&item("msg:msg_0", "Deploy 0? — deploy-bot")));
    }

    #[test]
    fn without_previews_a_request_is_named_by_its_sender_only() {
        let pending = PendingRequests {
            count: 1,
            newest: vec![request("msg_1", "Rotate the prod key?")],
            next_expiry: None,
        };
        let menu = model(&pending, None, false);
        assert!(menu.contains(&item("msg:msg_1", "deploy-bot: Needs your reply")));
        assert!(!format!("{menu:?}").contains("prod key"), "{menu:?}");
    }

    #[test]
    fn a_pause_offers_resume_and_says_until_when() {
        let until = DateTime::parse_from_rfc3339("2026-12-04T15:05:00+00:00")
            .unwrap()
            .with_timezone(&Local);
        let menu = model(&PendingRequests::default(), Some(until), true);
        assert_eq!(ids(&menu), ["open", "resume", "quit"]);
        assert!(menu.contains(&label("Nothing waits for you")));
        let said = format!("Notifications paused until {}", until.format("%H:%M"));
        assert!(menu.contains(&label(said)));
    }

    #[test]
    fn long_titles_are_cut_and_ampersands_kept() {
        let long = request("msg_1", &"A & B ".repeat(20));
        let text = request_label(&long, true);
        assert!(text.ends_with('…'), "{text}");
        assert!(text.contains("A && B"), "{text}");
    }

    #[test]
    fn the_icon_gets_a_dot_only_while_something_waits() {
        let plain = icon(false);
        let dotted = icon(true);
        assert_eq!(
            (plain.width(), plain.height()),
            (dotted.width(), dotted.height())
        );
        assert_ne!(plain.rgba(), dotted.rgba(), "the dot is drawn");
        let w = dotted.width() as usize;
        let corner = (w / 6 * w + w - w / 6) * 4;
        assert_eq!(
            &dotted.rgba()[corner..corner + 4],
            &[0xE5, 0x3E, 0x3E, 0xFF]
        );
    }
}
