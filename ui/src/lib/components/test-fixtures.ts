// Fixtures and a fake backend for the component tests (*.test.ts beside this file). The real
// backend module imports @tauri-apps, which never loads in tests: each component test replaces
// it with `vi.mock("../backend/tauri", async () => (await import("./test-fixtures")).fakeBackend())`.

import { vi } from "vitest";
import type * as Backend from "../backend/tauri";
import type { BlockView } from "../bindings/BlockView";
import type { ConnectionView } from "../bindings/ConnectionView";
import type { FieldError } from "../bindings/FieldError";
import type { FieldView } from "../bindings/FieldView";
import type { MessageSummary } from "../bindings/MessageSummary";
import type { MessageView } from "../bindings/MessageView";
import type { NotificationView } from "../bindings/NotificationView";
import type { SetupState } from "../bindings/SetupState";
import type { UiError } from "../bindings/UiError";
import type { UiErrorCode } from "../bindings/UiErrorCode";

/** Stand-in for the backend's error class (same shape: a stable `code`). */
class FakeBackendError extends Error implements UiError {
  readonly code: UiErrorCode;
  readonly fields: FieldError[];
  constructor(err: Omit<UiError, "fields"> & { fields?: FieldError[] }) {
    super(err.message);
    this.name = "BackendError";
    this.code = err.code;
    this.fields = err.fields ?? [];
  }
}

/** Every command a component under test may call, as a mock that must be told what to return. */
export function fakeBackend() {
  const unexpected = (name: string) => () => Promise.reject(new Error(`unexpected backend call: ${name}`));
  return {
    CORE_EVENT: "herald://event",
    OPEN_EVENT: "herald://open",
    CLOSE_REQUESTED_EVENT: "herald://close-requested",
    BackendError: FakeBackendError,
    toBackendError: vi.fn(),
    setupState: vi.fn<typeof Backend.setupState>(unexpected("setupState")),
    createAccount: vi.fn<typeof Backend.createAccount>(unexpected("createAccount")),
    listConnections: vi.fn<typeof Backend.listConnections>(unexpected("listConnections")),
    createConnection: vi.fn<typeof Backend.createConnection>(unexpected("createConnection")),
    revokeConnection: vi.fn<typeof Backend.revokeConnection>(unexpected("revokeConnection")),
    inbox: vi.fn<typeof Backend.inbox>(() => Promise.resolve([])),
    inboxPage: vi.fn<typeof Backend.inboxPage>(() => Promise.resolve({ messages: [], more: false, unreadOlder: 0 })),
    uiPainted: vi.fn<typeof Backend.uiPainted>(() => Promise.resolve()),
    message: vi.fn<typeof Backend.message>(unexpected("message")),
    thread: vi.fn<typeof Backend.thread>(() => Promise.resolve([])),
    markRead: vi.fn<typeof Backend.markRead>(() => Promise.resolve()),
    answer: vi.fn<typeof Backend.answer>(unexpected("answer")),
    checkRecoveryKey: vi.fn<typeof Backend.checkRecoveryKey>(unexpected("checkRecoveryKey")),
    syncState: vi.fn<typeof Backend.syncState>(() => Promise.resolve(null)),
    openExternal: vi.fn<typeof Backend.openExternal>(() => Promise.resolve()),
    onCoreEvent: vi.fn<typeof Backend.onCoreEvent>(() => Promise.resolve(() => {})),
    onOpen: vi.fn<typeof Backend.onOpen>(() => Promise.resolve(() => {})),
    takeOpenTarget: vi.fn<typeof Backend.takeOpenTarget>(() => Promise.resolve(null)),
    onCloseRequested: vi.fn<typeof Backend.onCloseRequested>(() => Promise.resolve(() => {})),
    closeHintShown: vi.fn<typeof Backend.closeHintShown>(unexpected("closeHintShown")),
    confirmClose: vi.fn<typeof Backend.confirmClose>(unexpected("confirmClose")),
    notifications: vi.fn<typeof Backend.notifications>(() => Promise.resolve([])),
    notification: vi.fn<typeof Backend.notification>(unexpected("notification")),
    markNotificationRead: vi.fn<typeof Backend.markNotificationRead>(() => Promise.resolve()),
    notificationSeen: vi.fn<typeof Backend.notificationSeen>(unexpected("notificationSeen")),
    replyNotification: vi.fn<typeof Backend.replyNotification>(unexpected("replyNotification")),
    speechStatus: vi.fn<typeof Backend.speechStatus>(() => Promise.resolve({ available: true, reason: null })),
    quietHours: vi.fn<typeof Backend.quietHours>(unexpected("quietHours")),
    setQuietHours: vi.fn<typeof Backend.setQuietHours>(unexpected("setQuietHours")),
    notificationSettings: vi.fn<typeof Backend.notificationSettings>(unexpected("notificationSettings")),
    setNotificationSettings: vi.fn<typeof Backend.setNotificationSettings>(unexpected("setNotificationSettings")),
    uiViewing: vi.fn<typeof Backend.uiViewing>(() => Promise.resolve()),
    agentKeys: vi.fn<typeof Backend.agentKeys>(() => Promise.resolve([])),
    createAgentKey: vi.fn<typeof Backend.createAgentKey>(unexpected("createAgentKey")),
    revokeAgentKey: vi.fn<typeof Backend.revokeAgentKey>(unexpected("revokeAgentKey")),
    connectors: vi.fn<typeof Backend.connectors>(() => Promise.resolve([])),
    approveConnector: vi.fn<typeof Backend.approveConnector>(unexpected("approveConnector")),
    denyConnector: vi.fn<typeof Backend.denyConnector>(unexpected("denyConnector")),
    revokeConnector: vi.fn<typeof Backend.revokeConnector>(unexpected("revokeConnector")),
    unlockWithRecoveryKey: vi.fn<typeof Backend.unlockWithRecoveryKey>(unexpected("unlockWithRecoveryKey")),
    startPairing: vi.fn<typeof Backend.startPairing>(unexpected("startPairing")),
    waitPairing: vi.fn<typeof Backend.waitPairing>(unexpected("waitPairing")),
    pairingRequests: vi.fn<typeof Backend.pairingRequests>(() => Promise.resolve([])),
    approvePairing: vi.fn<typeof Backend.approvePairing>(unexpected("approvePairing")),
    devices: vi.fn<typeof Backend.devices>(() => Promise.resolve([])),
    revokeDevice: vi.fn<typeof Backend.revokeDevice>(unexpected("revokeDevice")),
    resetAccount: vi.fn<typeof Backend.resetAccount>(unexpected("resetAccount")),
    unsavedRecoveryKey: vi.fn<typeof Backend.unsavedRecoveryKey>(async () => null),
    recoveryKeySaved: vi.fn<typeof Backend.recoveryKeySaved>(async () => undefined),
    safetyCode: vi.fn<typeof Backend.safetyCode>(unexpected("safetyCode")),
    saveAttachment: vi.fn<typeof Backend.saveAttachment>(unexpected("saveAttachment")),
    attachmentImage: vi.fn<typeof Backend.attachmentImage>(unexpected("attachmentImage")),
    pickFile: vi.fn<typeof Backend.pickFile>(unexpected("pickFile")),
    openSecretOffer: vi.fn<typeof Backend.openSecretOffer>(unexpected("openSecretOffer")),
    revealSecretOffer: vi.fn<typeof Backend.revealSecretOffer>(unexpected("revealSecretOffer")),
    checkForUpdate: vi.fn<typeof Backend.checkForUpdate>(unexpected("checkForUpdate")),
    installUpdate: vi.fn<typeof Backend.installUpdate>(unexpected("installUpdate")),
    updateSettings: vi.fn<typeof Backend.updateSettings>(unexpected("updateSettings")),
    setUpdateSettings: vi.fn<typeof Backend.setUpdateSettings>(unexpected("setUpdateSettings")),
    launchSettings: vi.fn<typeof Backend.launchSettings>(unexpected("launchSettings")),
    setAutostart: vi.fn<typeof Backend.setAutostart>(unexpected("setAutostart")),
    setShortcut: vi.fn<typeof Backend.setShortcut>(unexpected("setShortcut")),
  } satisfies Record<keyof typeof Backend, unknown>;
}

export function summary(patch: Partial<MessageSummary> = {}): MessageSummary {
  return {
    id: "msg-1",
    revision: 1,
    title: "Deploy to production?",
    senderName: "deploy-bot",
    senderId: "conn-1",
    createdAt: "2026-03-01T10:00:00Z",
    expiresAt: null,
    status: "pending",
    expectsAnswer: true,
    unread: false,
    error: null,
    threadId: patch.id ?? "msg-1",
    threadSequence: 0,
    replyTo: null,
    kind: "message",
    ...patch,
  };
}

export function field(patch: Partial<FieldView> & Pick<FieldView, "id" | "kind">): FieldView {
  return {
    label: patch.id,
    required: false,
    help: null,
    options: [],
    defaultJson: null,
    header: null,
    other: false,
    minimum: null,
    maximum: null,
    minLength: null,
    maxLength: null,
    ...patch,
  };
}

function option(value: string, label: string) {
  return { value, label, description: null, previewHtml: null };
}

export function messageView(patch: Partial<MessageView> = {}): MessageView {
  return {
    summary: summary(),
    bodyHtml: "<p>Please look this over.</p>",
    bodyMarkdown: "Please look this over.",
    actions: [],
    fields: [],
    formSource: "none",
    blocks: [],
    requiresReview: false,
    answer: null,
    attachments: [],
    answerQueued: false,
    kind: "message",
    ...patch,
  };
}

/** One field of each kind the form test fills: only the text field is required. */
export const FORM_FIELDS: FieldView[] = [
  field({ id: "reason", kind: "text", label: "Reason", required: true }),
  field({ id: "replicas", kind: "integer", label: "Replicas", minimum: 1, maximum: 5 }),
  field({ id: "notify", kind: "boolean", label: "Notify the team" }),
  field({
    id: "region",
    kind: "choice",
    label: "Region",
    other: true,
    options: [option("eu", "Europe"), option("us", "United States")],
  }),
  field({
    id: "checks",
    kind: "multiselect",
    label: "Checks",
    options: [option("lint", "Lint"), option("unit", "Unit tests"), option("e2e", "End-to-end")],
  }),
];

export const formMessage = (patch: Partial<MessageView> = {}): MessageView =>
  messageView({ fields: FORM_FIELDS, formSource: "fields", ...patch });

export const actionMessage = (patch: Partial<MessageView> = {}): MessageView =>
  messageView({
    actions: [
      { id: "approve", label: "Approve" },
      { id: "reject", label: "Reject" },
    ],
    ...patch,
  });

/** A diff block as herald-render shapes it (one `tr` per line, classed by kind). */
export const DIFF_BLOCK: BlockView = {
  kind: "diff",
  title: "src/config.rs",
  language: null,
  requiresReview: true,
  attachmentId: null,
  text: "@@ -1,2 +1,2 @@\n-let replicas = 2;\n+let replicas = 3;\n fn main() {}",
  html:
    '<table class="diff"><tbody>\n' +
    '<tr class="diff-hunk"><td class="diff-ln"></td><td class="diff-ln"></td><td class="diff-text">@@ -1,2 +1,2 @@</td></tr>\n' +
    '<tr class="diff-removed"><td class="diff-ln">1</td><td class="diff-ln"></td><td class="diff-text">-replicas = 2</td></tr>\n' +
    '<tr class="diff-added"><td class="diff-ln"></td><td class="diff-ln">1</td><td class="diff-text">+replicas = 3</td></tr>\n' +
    '<tr class="diff-context"><td class="diff-ln">2</td><td class="diff-ln">2</td><td class="diff-text"> region = "eu"</td></tr>\n' +
    "</tbody></table>\n",
};

/** An account that is set up on this device (`setupState` once onboarding is done). */
export const READY_SETUP: SetupState = {
  status: "ready",
  accountId: "acc_1",
  deviceId: "dev_1",
  deviceName: "laptop",
  relayUrl: "http://127.0.0.1:8457",
  safetyCode: "12345 67890 13579 24680 11111 22222",
  secretStorage: "keychain",
  secretStoragePath: null,
};

export const CONNECTIONS: ConnectionView[] = [
  { id: "conn-1", name: "deploy-bot", scopes: ["messages:send", "messages:read", "events:read"], createdAt: "2026-02-01T09:00:00Z" },
  { id: "conn-2", name: "ci-agent", scopes: ["messages:send"], createdAt: "2026-02-02T09:00:00Z" },
];

/** A notification from an agent, as the core shows it (not end-to-end encrypted). */
export function agentNotification(patch: Partial<NotificationView> = {}): NotificationView {
  return {
    id: "ntf_1",
    notificationId: "build-214",
    endToEnd: false,
    title: "Build finished",
    subtitle: null,
    body: "All 214 tests passed.",
    speak: false,
    expectReply: false,
    priority: "normal",
    sound: true,
    group: null,
    threadId: null,
    sourceKind: "agentKey",
    sourceName: "build-bot",
    sourceId: "agk-1",
    receivedAt: "2026-03-01T10:05:00Z",
    displayedAt: null,
    spokenAt: null,
    repliedAt: null,
    reply: null,
    suppressed: false,
    unread: true,
    error: null,
    revision: 2,
    ...patch,
  };
}
