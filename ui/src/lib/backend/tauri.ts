// The one door to the host: the only module that imports @tauri-apps/*. Every command of the
// desktop shell (src-tauri/src/commands.rs) has one typed function here; request and response
// types come from the Rust-generated bindings.

import { invoke } from "@tauri-apps/api/core";
import { listen, type UnlistenFn } from "@tauri-apps/api/event";

import type { AnswerInput } from "../bindings/AnswerInput";
import type { ConnectionView } from "../bindings/ConnectionView";
import type { CoreEvent } from "../bindings/CoreEvent";
import type { MessageSummary } from "../bindings/MessageSummary";
import type { MessageView } from "../bindings/MessageView";
import type { NewConnection } from "../bindings/NewConnection";
import type { OnboardResult } from "../bindings/OnboardResult";
import type { SetupState } from "../bindings/SetupState";
import type { UiError } from "../bindings/UiError";

/** Name of the event the shell emits for every CoreEvent. */
export const CORE_EVENT = "herald://event";
/** The shell asks to open a message (a click on its OS notification). */
export const OPEN_MESSAGE_EVENT = "herald://open-message";

/** Where the account's relay runs: in this app, or at a URL. */
export type RelayChoice = { kind: "embedded" } | { kind: "url"; url: string };

/** An error from the shell, with the stable `code` to branch on. */
export class BackendError extends Error implements UiError {
  readonly code: string;
  constructor(err: UiError) {
    super(err.message);
    this.name = "BackendError";
    this.code = err.code;
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

async function call<T>(command: string, args?: Record<string, unknown>): Promise<T> {
  try {
    return await invoke<T>(command, args);
  } catch (err) {
    throw toBackendError(err);
  }
}

export function setupState(): Promise<SetupState> {
  return call<SetupState>("setup_state");
}

/** Creates the account. With the embedded relay the shell starts it first. */
export function createAccount(relay: RelayChoice): Promise<OnboardResult> {
  const relayUrl = relay.kind === "url" ? relay.url : null;
  return call<OnboardResult>("create_account", { relayUrl });
}

export function listConnections(): Promise<ConnectionView[]> {
  return call<ConnectionView[]>("list_connections");
}

export function createConnection(name: string): Promise<NewConnection> {
  return call<NewConnection>("create_connection", { name });
}

/** Revokes a connection: the relay refuses its token from the next request on (errors: not_found). */
export function revokeConnection(id: string): Promise<void> {
  return call<void>("revoke_connection", { id });
}

export function inbox(): Promise<MessageSummary[]> {
  return call<MessageSummary[]>("inbox");
}

export function message(id: string): Promise<MessageView> {
  return call<MessageView>("message", { id });
}

/** The conversation the message belongs to, oldest first (the message itself included). */
export function thread(id: string): Promise<MessageSummary[]> {
  return call<MessageSummary[]>("thread", { id });
}

export function markRead(id: string): Promise<void> {
  return call<void>("mark_read", { id });
}

export function answer(id: string, input: AnswerInput): Promise<MessageView> {
  return call<MessageView>("answer", { id, input });
}

/** Whether a typed recovery key opens this account (errors: invalid_input, not_found). */
export function checkRecoveryKey(typed: string): Promise<boolean> {
  return call<boolean>("check_recovery_key", { typed });
}

/** The latest syncState event, or null before sync reported anything. */
export function syncState(): Promise<CoreEvent | null> {
  return call<CoreEvent | null>("sync_state");
}

/** Opens an http(s) or mailto link in the system browser. */
export function openExternal(url: string): Promise<void> {
  return call<void>("open_external", { url });
}

/** Subscribes to core events; returns the function that unsubscribes. */
export function onCoreEvent(handler: (event: CoreEvent) => void): Promise<UnlistenFn> {
  return listen<CoreEvent>(CORE_EVENT, (e) => handler(e.payload));
}

/** Subscribes to "open this message" requests from the shell; returns the unsubscriber. */
export function onOpenMessage(handler: (messageId: string) => void): Promise<UnlistenFn> {
  return listen<{ messageId: string }>(OPEN_MESSAGE_EVENT, (e) => handler(e.payload.messageId));
}
