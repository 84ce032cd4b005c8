// The command contract: every command the webview may call, declared once. Each line reads
//
//     /// What it does (becomes the TypeScript doc comment).
//     name(argument: RustType, …) -> ResultType => crate::module::handler;
//
// Arguments travel as one JSON object with camelCase keys; `Option<T>` arguments may be null.
// Every command can fail with a `UiError`. From this list come: the permission names
// (build.rs, which includes this file), the dispatcher and Tauri's invoke handler (mod.rs), and
// the UI's `ui/src/lib/bindings/commands.ts` (written by `cargo test -p herald-desktop`);
// capabilities/main.json is checked against it by a test. Adding a command: CONTRIBUTING.md.
commands! {
    /// Whether an account exists here and whether the device core is open.
    setup_state() -> SetupState => crate::commands::setup_state;
    /// Creates the account on `relayUrl`, or on the embedded relay when it is null, then starts sync.
    create_account(relay_url: Option<String>) -> OnboardResult => crate::commands::create_account;
    /// The agent connections of this account.
    list_connections() -> Vec<ConnectionView> => crate::commands::list_connections;
    /// Creates a connection named `name` and returns its one-time token. `scopes`: what it may do (`messages:send`, `messages:read`, `events:read`); null for all three.
    create_connection(name: String, scopes: Option<Vec<String>>) -> NewConnection => crate::commands::create_connection;
    /// Every cached message, newest first.
    inbox() -> Vec<MessageSummary> => crate::commands::inbox;
    /// A page of the inbox: the `limit` (1..=5,000) newest messages, or those older than `before`.
    inbox_page(before: Option<String>, limit: u32) -> InboxPage => crate::commands::inbox_page;
    /// One message with its rendered body, form and answer.
    message(id: String) -> MessageView => crate::commands::message;
    /// Marks a message read.
    mark_read(id: String) -> () => crate::commands::mark_read;
    /// Answers a request; `input.files` holds pick ids from `pick_file`.
    answer(id: String, input: AnswerInput) -> MessageView => crate::commands::answer;
    /// Opens an http(s) or mailto link in the system browser.
    open_external(url: String) -> () => crate::commands::open_external;
    /// The latest `syncState` event, or null before sync reported anything.
    sync_state() -> Option<CoreEvent> => crate::commands::sync_state;
    /// Whether a typed recovery key opens this account's backup.
    check_recovery_key(typed: String) -> bool => crate::commands::check_recovery_key;
    /// Revokes a connection: the relay refuses its token from the next request on.
    revoke_connection(id: String) -> () => crate::commands::revoke_connection;
    /// The conversation a message belongs to, oldest first.
    thread(id: String) -> Vec<MessageSummary> => crate::commands::thread;
    /// Lets the person choose a file to attach (null when cancelled).
    pick_file() -> Option<PickedFile> => crate::files::pick_file;
    /// Opens a secret offer on this device.
    open_secret_offer(id: String) -> () => crate::commands::open_secret_offer;
    /// The offered secret once its sender sent it (null until then); handed over once.
    reveal_secret_offer(id: String) -> Option<SecretReveal> => crate::commands::reveal_secret_offer;
    /// Saves an attachment where the person chooses; the path, or null when cancelled.
    save_attachment(message_id: String, attachment_id: String) -> Option<String> => crate::files::save_attachment;
    /// An image attachment's decrypted bytes, for display.
    attachment_image(message_id: String, attachment_id: String) -> Bytes => crate::files::attachment_image;
    /// Joins this device to an account with its recovery key.
    unlock_with_recovery_key(relay_url: String, recovery_key: String) -> UnlockResult => crate::devices::unlock_with_recovery_key;
    /// Asks an unlocked device of the account to approve this one.
    start_pairing(relay_url: String) -> PairingStarted => crate::devices::start_pairing;
    /// Waits until the pairing started here is approved.
    wait_pairing(pairing_id: String) -> UnlockResult => crate::devices::wait_pairing;
    /// New devices waiting for approval.
    pairing_requests() -> Vec<PairingRequestView> => crate::devices::pairing_requests;
    /// Approves a new device with the code it shows.
    approve_pairing(pairing_id: String, code: String) -> DeviceView => crate::devices::approve_pairing;
    /// The account's devices.
    devices() -> Vec<DeviceView> => crate::devices::devices;
    /// Revokes a device.
    revoke_device(id: String) -> () => crate::devices::revoke_device;
    /// Starts over with a new account on the same relay.
    reset_account() -> OnboardResult => crate::devices::reset_account;
    /// The new recovery key (of the account's creation or a reset) the person has not confirmed saving yet; null when none. Kept in memory only, so a window closed before "I have saved it" shows it again.
    unsaved_recovery_key() -> Option<OnboardResult> => crate::devices::unsaved_recovery_key;
    /// The person confirmed saving the recovery key: Herald forgets it.
    recovery_key_saved() -> () => crate::devices::recovery_key_saved;
    /// The safety code every device of the account shows.
    safety_code() -> String => crate::devices::safety_code;
    /// Agent notifications, newest first.
    notifications() -> Vec<NotificationView> => crate::agents::notifications;
    /// One agent notification.
    notification(id: String) -> NotificationView => crate::agents::notification;
    /// Marks an agent notification read.
    mark_notification_read(id: String) -> () => crate::agents::mark_notification_read;
    /// Records that the person saw a notification (sends its `seen` receipt once).
    notification_seen(id: String) -> NotificationView => crate::agents::notification_seen;
    /// Replies to an agent notification.
    reply_notification(id: String, text: String) -> NotificationView => crate::agents::reply_notification;
    /// Whether reading aloud works here.
    speech_status() -> SpeechStatus => crate::agents::speech_status;
    /// The quiet-hours settings.
    quiet_hours() -> QuietHoursSettings => crate::agents::quiet_hours;
    /// Saves the quiet-hours settings.
    set_quiet_hours(settings: QuietHoursSettings) -> QuietHoursSettings => crate::agents::set_quiet_hours;
    /// The notification settings.
    notification_settings() -> NotificationSettings => crate::agents::notification_settings;
    /// Saves the notification settings.
    set_notification_settings(settings: NotificationSettings) -> NotificationSettings => crate::agents::set_notification_settings;
    /// What the window shows (a message id or null) and whether it has focus.
    ui_viewing(message_id: Option<String>, focused: bool) -> () => crate::agents::ui_viewing;
    /// The agent keys of this account.
    agent_keys() -> Vec<AgentKeyView> => crate::agents::agent_keys;
    /// Creates an agent key named `name`; its secret is shown once.
    create_agent_key(name: String) -> NewAgentKey => crate::agents::create_agent_key;
    /// Revokes an agent key.
    revoke_agent_key(id: String) -> () => crate::agents::revoke_agent_key;
    /// The connectors (MCP clients) of this account.
    connectors() -> Vec<ConnectorView> => crate::agents::connectors;
    /// Approves a connector by the code it showed, optionally renaming it.
    approve_connector(user_code: String, name: Option<String>) -> ConnectorView => crate::agents::approve_connector;
    /// Denies a connector by the code it showed.
    deny_connector(user_code: String) -> () => crate::agents::deny_connector;
    /// Revokes a connector.
    revoke_connector(id: String) -> () => crate::agents::revoke_connector;
    /// The UI painted a screen (for start-up measurements).
    ui_painted(screen: String, rows: u32, phases: Option<PagePhases>) -> () => crate::paint::ui_painted;
    /// Whether the first-close notice was already shown.
    close_hint_shown() -> bool => crate::closing::close_hint_shown;
    /// The person read the close notice: close the window, or quit when `quit`.
    confirm_close(quit: bool) -> () => crate::closing::confirm_close;
    /// What the window should show first (a banner press, a link), taken once.
    take_open_target() -> Option<OpenTarget> => crate::window::take_open_target;
    /// Launch at login and the global shortcut.
    launch_settings() -> LaunchSettings => crate::launch::launch_settings;
    /// Turns launch at login on or off.
    set_autostart(enabled: bool) -> LaunchSettings => crate::launch::set_autostart;
    /// Sets the global shortcut ("" turns it off).
    set_shortcut(shortcut: String) -> LaunchSettings => crate::launch::set_shortcut;
    /// Asks the update server whether a newer Herald exists.
    check_for_update() -> UpdateCheck => crate::updates::check_for_update;
    /// Downloads, verifies and installs the update found, then restarts.
    install_update() -> () => crate::updates::install_update;
    /// The update settings.
    update_settings() -> UpdateSettings => crate::updates::update_settings;
    /// Turns the daily update check on or off.
    set_update_settings(auto_check: bool) -> UpdateSettings => crate::updates::set_update_settings;
}
