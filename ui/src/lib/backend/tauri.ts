// The one door to the host: the only module that imports @tauri-apps/*. Every command of the
// desktop shell has one typed function here; names, arguments and results are checked against
// the contract (src-tauri/src/contract/list.rs) through the generated bindings/commands.ts.

import { invoke } from "@tauri-apps/api/core";
import { listen, type UnlistenFn } from "@tauri-apps/api/event";

import type { AgentKeyView } from "../bindings/AgentKeyView";
import type { Commands } from "../bindings/commands";
import type { LaunchSettings } from "../bindings/LaunchSettings";
import type { PickedFile } from "../bindings/PickedFile";
import type { SpeechStatus } from "../bindings/SpeechStatus";
import type { AnswerInput } from "../bindings/AnswerInput";
import type { ConnectionView } from "../bindings/ConnectionView";
import type { ConnectorView } from "../bindings/ConnectorView";
import type { CoreEvent } from "../bindings/CoreEvent";
import type { DeviceView } from "../bindings/DeviceView";
import type { FieldError } from "../bindings/FieldError";
import type { InboxPage } from "../bindings/InboxPage";
import type { MessageSummary } from "../bindings/MessageSummary";
import type { MessageView } from "../bindings/MessageView";
import type { NewAgentKey } from "../bindings/NewAgentKey";
import type { NewConnection } from "../bindings/NewConnection";
import type { NotificationSettings } from "../bindings/NotificationSettings";
import type { NotificationView } from "../bindings/NotificationView";
import type { OnboardResult } from "../bindings/OnboardResult";
import type { PagePhases } from "../bindings/PagePhases";
import type { PairingRequestView } from "../bindings/PairingRequestView";
import type { PairingStarted } from "../bindings/PairingStarted";
import type { QuietHoursSettings } from "../bindings/QuietHoursSettings";
import type { SecretReveal } from "../bindings/SecretReveal";
import type { SetupState } from "../bindings/SetupState";
import type { UiError } from "../bindings/UiError";
import type { UiErrorCode } from "../bindings/UiErrorCode";
import type { UnlockResult } from "../bindings/UnlockResult";
import type { UpdateCheck } from "../bindings/UpdateCheck";
import type { UpdateSettings } from "../bindings/UpdateSettings";
import type { OpenTarget } from "../open-target";

/** Name of the event the shell emits for every CoreEvent. */
export const CORE_EVENT = "herald://event";
/**
 * The shell asks the window to show something (an `OpenTarget`: a banner click, a summary
 * banner, the tray, a `herald://` link, the global shortcut, a second launch).
 */
export const OPEN_EVENT = "herald://open";
/**
 * The person closed the window and the shell held the close back (Herald keeps running in the
 * background): the UI tells them so the first time, then answers with `confirmClose`.
 */
export const CLOSE_REQUESTED_EVENT = "herald://close-requested";

export type { LaunchSettings, PickedFile, SpeechStatus };

/** Where the account's relay runs: in this app, or at a URL. */
export type RelayChoice = { kind: "embedded" } | { kind: "url"; url: string };

/** An error from the shell, with the stable `code` to branch on. */
export class BackendError extends Error implements UiError {
  readonly code: UiErrorCode;
  /** The inputs at fault (a field id or path, and why); empty when about no input. */
  readonly fields: FieldError[];
  constructor(err: Omit<UiError, "fields"> & { fields?: FieldError[] }) {
    super(err.message);
    this.name = "BackendError";
    this.code = err.code;
    this.fields = err.fields ?? [];
  }
}

function isUiError(value: unknown): value is UiError {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as UiError).code === "string" &&
    typeof (value as UiError).message === "string"
  );
}

/** Turns whatever `invoke` rejected with into a BackendError. */
export function toBackendError(value: unknown): BackendError {
  if (value instanceof BackendError) return value;
  if (isUiError(value)) return new BackendError(value);
  const message = value instanceof Error ? value.message : String(value);
  return new BackendError({ code: "ipc", message });
}

type ArgsOf<K extends keyof Commands> = Commands[K]["args"];
type ResultOf<K extends keyof Commands> = Commands[K]["result"];

/**
 * Invokes a command of the contract (src-tauri/src/contract/list.rs): its name, arguments and
 * result are typed by the generated `Commands`, so a command changed there fails the type check
 * here. Rejects with a BackendError.
 */
async function call<K extends keyof Commands>(
  command: K,
  ...args: ArgsOf<K> extends Record<string, never> ? [] : [ArgsOf<K>]
): Promise<ResultOf<K>> {
  try {
    return await invoke<ResultOf<K>>(command, args[0]);
  } catch (err) {
    throw toBackendError(err);
  }
}

export function setupState(): Promise<SetupState> {
  return call("setup_state");
}

/** Creates the account. With the embedded relay the shell starts it first. */
export function createAccount(relay: RelayChoice): Promise<OnboardResult> {
  const relayUrl = relay.kind === "url" ? relay.url : null;
  return call("create_account", { relayUrl });
}

export function listConnections(): Promise<ConnectionView[]> {
  return call("list_connections");
}

/** `scopes`: what the connection may do (lib/connections.ts `SCOPES`); null for everything. */
export function createConnection(name: string, scopes: string[] | null = null): Promise<NewConnection> {
  return call("create_connection", { name, scopes });
}

/** Revokes a connection: the relay refuses its token from the next request on (errors: not_found). */
export function revokeConnection(id: string): Promise<void> {
  return call("revoke_connection", { id });
}

export function inbox(): Promise<MessageSummary[]> {
  return call("inbox");
}

/**
 * A page of the inbox, newest first: the `limit` (1–5,000) newest messages, or those older
 * than message `before` (the last id of the previous page). Errors: not_found when `before`
 * is no longer cached (start again from the newest).
 */
export function inboxPage(before: string | null, limit: number): Promise<InboxPage> {
  return call("inbox_page", { before, limit });
}

/**
 * Tells the shell the first screen has painted (`screen`: a short fixed name; `rows`: list
 * rows in the DOM; `phases`: when the page reached each step, lib/startup-phases.ts). The shell
 * logs it at info level; the desktop benchmark reads that line.
 */
export function uiPainted(screen: string, rows: number, phases: PagePhases | null = null): Promise<void> {
  return call("ui_painted", { screen, rows, phases });
}

export function message(id: string): Promise<MessageView> {
  return call("message", { id });
}

/** The conversation the message belongs to, oldest first (the message itself included). */
export function thread(id: string): Promise<MessageSummary[]> {
  return call("thread", { id });
}

export function markRead(id: string): Promise<void> {
  return call("mark_read", { id });
}

/**
 * Answers a request. From the webview, `input.files` maps file fields to the `pickId`s that
 * `pickFile` returned (never paths): the shell swaps them for the files it kept, which the core
 * encrypts and uploads. Secret values in `input` are sent once and kept nowhere.
 */
export function answer(id: string, input: AnswerInput): Promise<MessageView> {
  return call("answer", { id, input });
}

/** Whether a typed recovery key opens this account (errors: invalid_input, not_found). */
export function checkRecoveryKey(typed: string): Promise<boolean> {
  return call("check_recovery_key", { typed });
}

/**
 * Unlocks this new device with the account's recovery key (typed; case and separators do not
 * matter). Errors: invalid_input (malformed or mistyped key), wrong_recovery_key (it opens no account
 * here), not_found, network. The key is not kept anywhere.
 */
export function unlockWithRecoveryKey(relayUrl: string, recoveryKey: string): Promise<UnlockResult> {
  return call("unlock_with_recovery_key", { relayUrl, recoveryKey });
}

/** Registers this new device's pairing request; its 8-digit code is shown here and typed there. */
export function startPairing(relayUrl: string): Promise<PairingStarted> {
  return call("start_pairing", { relayUrl });
}

/** Waits until the request is approved (then this device is unlocked); errors: wrong code, expired. */
export function waitPairing(pairingId: string): Promise<UnlockResult> {
  return call("wait_pairing", { pairingId });
}

/** New devices waiting for approval from this one. */
export function pairingRequests(): Promise<PairingRequestView[]> {
  return call("pairing_requests");
}

/** Approves a new device with the code it shows (one attempt per request); errors: wrong code. */
export function approvePairing(pairingId: string, code: string): Promise<DeviceView> {
  return call("approve_pairing", { pairingId, code });
}

/** The account's devices, this one marked `current`. */
export function devices(): Promise<DeviceView[]> {
  return call("devices");
}

/** Revokes a device and rotates the account's encryption key. */
export function revokeDevice(id: string): Promise<void> {
  return call("revoke_device", { id });
}

/**
 * Resets the account: new keys, all activity and files deleted, every connection revoked,
 * other devices must unlock again. Returns the new recovery key (shown once).
 */
/**
 * The new recovery key (of the account's creation or a reset) the person has not confirmed
 * saving; null when none. A window closed on the key's screen shows it again from this.
 */
export function unsavedRecoveryKey(): Promise<OnboardResult | null> {
  return call("unsaved_recovery_key");
}

/** The person confirmed saving the recovery key: the shell forgets it. */
export function recoveryKeySaved(): Promise<void> {
  return call("recovery_key_saved");
}

export function resetAccount(): Promise<OnboardResult> {
  return call("reset_account");
}

/** This account's safety code: 30 digits in 6 groups of 5, the same on every device. */
export function safetyCode(): Promise<string> {
  return call("safety_code");
}

/** Asks where to save an attachment (a system dialog) and saves it there; null when cancelled. */
export function saveAttachment(messageId: string, attachmentId: string): Promise<string | null> {
  return call("save_attachment", { messageId, attachmentId });
}

/** An image attachment's decrypted bytes, for an image block (errors: file_expired, …). */
export async function attachmentImage(messageId: string, attachmentId: string): Promise<Uint8Array> {
  const raw: ArrayBuffer | number[] = await call("attachment_image", { messageId, attachmentId });
  return raw instanceof ArrayBuffer ? new Uint8Array(raw) : Uint8Array.from(raw);
}

/** Opens the system's file picker for a file field; null when cancelled. */
export function pickFile(): Promise<PickedFile | null> {
  return call("pick_file");
}

/** Opens a secret offer: posts this device's one-time key for the sender to encrypt to. */
export function openSecretOffer(id: string): Promise<void> {
  return call("open_secret_offer", { id });
}

/** The offered secret once the sender posted it (null until then); handed over once. */
export function revealSecretOffer(id: string): Promise<SecretReveal | null> {
  return call("reveal_secret_offer", { id });
}

/** The latest syncState event, or null before sync reported anything. */
export function syncState(): Promise<CoreEvent | null> {
  return call("sync_state");
}

/** Opens an http(s) or mailto link in the system browser. */
export function openExternal(url: string): Promise<void> {
  return call("open_external", { url });
}

/** Subscribes to core events; returns the function that unsubscribes. */
export function onCoreEvent(handler: (event: CoreEvent) => void): Promise<UnlistenFn> {
  return listen<CoreEvent>(CORE_EVENT, (e) => handler(e.payload));
}

/** Subscribes to the shell's requests to show something; returns the unsubscriber. */
export function onOpen(handler: (target: OpenTarget) => void): Promise<UnlistenFn> {
  return listen<OpenTarget>(OPEN_EVENT, (e) => handler(e.payload));
}

/**
 * What the shell wanted shown when this window was created (it is destroyed on close and made
 * again by the tray, a banner, a link or a second launch), or null. Taken: asked once per window.
 */
export function takeOpenTarget(): Promise<OpenTarget | null> {
  return call("take_open_target");
}

// Closing the window. Herald keeps running in the background (tray icon; Quit in its menu).

/** Whether the person was already told, once, that closing the window leaves Herald running. */
export function closeHintShown(): Promise<boolean> {
  return call("close_hint_shown");
}

/**
 * Closes the window and leaves Herald running (`quit` false), or quits Herald (`quit` true).
 * Either way the shell records the close hint as shown. Sent after a close the shell held
 * back, and for Ctrl+Q / Cmd+Q pressed in the window (`quit` true, no close pending).
 */
export function confirmClose(quit: boolean): Promise<void> {
  return call("confirm_close", { quit });
}

/** Subscribes to the shell's held-back window closes; returns the unsubscriber. */
export function onCloseRequested(handler: () => void): Promise<UnlistenFn> {
  return listen<null>(CLOSE_REQUESTED_EVENT, () => handler());
}

// The agent side. Notifications from agents are NOT end-to-end encrypted: the relay saw them.

/** Notifications from agents, newest first. */
export function notifications(): Promise<NotificationView[]> {
  return call("notifications");
}

/** One notification (errors: not_found). */
export function notification(id: string): Promise<NotificationView> {
  return call("notification", { id });
}

export function markNotificationRead(id: string): Promise<void> {
  return call("mark_notification_read", { id });
}

/** The inbox shows this notification in a visible window: reported as displayed (once). */
export function notificationSeen(id: string): Promise<NotificationView> {
  return call("notification_seen", { id });
}

/** The one typed reply, 1–4,000 characters (errors: invalid_input, already_answered, not_a_request). */
export function replyNotification(id: string, text: string): Promise<NotificationView> {
  return call("reply_notification", { id, text });
}

export function speechStatus(): Promise<SpeechStatus> {
  return call("speech_status");
}

export function quietHours(): Promise<QuietHoursSettings> {
  return call("quiet_hours");
}

/** Saves quiet hours (errors: invalid_request naming start, end or timezone). */
export function setQuietHours(settings: QuietHoursSettings): Promise<QuietHoursSettings> {
  return call("set_quiet_hours", { settings });
}

/** This device's notification settings: banner mode, muted senders, sound, previews. */
export function notificationSettings(): Promise<NotificationSettings> {
  return call("notification_settings");
}

/** Saves this device's notification settings; returns them as saved (errors: invalid_input naming muted). */
export function setNotificationSettings(settings: NotificationSettings): Promise<NotificationSettings> {
  return call("set_notification_settings", { settings });
}

/**
 * Tells the shell what the window shows: the message or notification open in the reading pane
 * (null for none) and whether the window has the focus. Only that item, while focused, gets no
 * banner.
 */
export function uiViewing(messageId: string | null, focused: boolean): Promise<void> {
  return call("ui_viewing", { messageId, focused });
}

export function agentKeys(): Promise<AgentKeyView[]> {
  return call("agent_keys");
}

/** Creates an agent key; `key` is in this answer only. */
export function createAgentKey(name: string): Promise<NewAgentKey> {
  return call("create_agent_key", { name });
}

export function revokeAgentKey(id: string): Promise<void> {
  return call("revoke_agent_key", { id });
}

export function connectors(): Promise<ConnectorView[]> {
  return call("connectors");
}

/** Approves the connector showing `userCode` (errors: invalid_request, not_found). */
export function approveConnector(userCode: string, name: string | null): Promise<ConnectorView> {
  return call("approve_connector", { userCode, name });
}

export function denyConnector(userCode: string): Promise<void> {
  return call("deny_connector", { userCode });
}

export function revokeConnector(id: string): Promise<void> {
  return call("revoke_connector", { id });
}

// Updates (src-tauri/src/updates.rs): verified against Herald's release signature before install.

/**
 * Asks the update server whether a newer Herald is published for this installation; nothing is
 * downloaded. Errors: update_unreachable, update_bad_manifest, update_no_build,
 * update_not_configured, update_unsupported.
 */
export function checkForUpdate(): Promise<UpdateCheck> {
  return call("check_for_update");
}

/**
 * Downloads, verifies and installs the update the last check found, then Herald restarts.
 * Errors: update_not_checked, update_bad_signature, update_version_mismatch,
 * update_not_installable (a development build), update_permission_denied,
 * update_install_failed, update_unreachable.
 */
export function installUpdate(): Promise<void> {
  return call("install_update");
}

/** This device's update settings and what the last check found. */
export function updateSettings(): Promise<UpdateSettings> {
  return call("update_settings");
}

/** Switches the daily update check on or off, on this device only (errors: storage). */
export function setUpdateSettings(autoCheck: boolean): Promise<UpdateSettings> {
  return call("set_update_settings", { autoCheck });
}

// Launching (start at login, the global shortcut): settings of this computer only.

export function launchSettings(): Promise<LaunchSettings> {
  return call("launch_settings");
}

/** Starts Herald at login, in the background, or stops doing so. */
export function setAutostart(enabled: boolean): Promise<LaunchSettings> {
  return call("set_autostart", { enabled });
}

/**
 * Sets the global shortcut (an accelerator; "" turns it off). Errors: invalid_input,
 * shortcut_taken (another app registered it).
 */
export function setShortcut(shortcut: string): Promise<LaunchSettings> {
  return call("set_shortcut", { shortcut });
}
