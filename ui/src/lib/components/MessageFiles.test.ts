// @vitest-environment jsdom
// Files and secrets in the reading pane: the attachments list and Save…, image blocks from
// attachment bytes (only real images), expired files, file and secret fields in forms, and the
// secret offer card.
import { fireEvent, render, screen, waitFor, within } from "@testing-library/svelte";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import * as backend from "../backend/tauri";
import type { BlockView } from "../bindings/BlockView";
import type { MessageView } from "../bindings/MessageView";
import MessagePane from "./MessagePane.svelte";
import { field, messageView, summary } from "./test-fixtures";

vi.mock("../backend/tauri", async () => (await import("./test-fixtures")).fakeBackend());

const saveAttachment = vi.mocked(backend.saveAttachment);
const attachmentImage = vi.mocked(backend.attachmentImage);
const pickFile = vi.mocked(backend.pickFile);
const answer = vi.mocked(backend.answer);
const openSecretOffer = vi.mocked(backend.openSecretOffer);
const revealSecretOffer = vi.mocked(backend.revealSecretOffer);
const BackendError = backend.BackendError;

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
const ATTACHMENTS = [
  { id: "att_1", name: "report.pdf", mimeType: "application/pdf", size: 1500, inlineImage: false },
  { id: "att_2", name: "diagram.png", mimeType: "image/png", size: 2_000_000, inlineImage: true },
];
const IMAGE_BLOCK = {
  kind: "image",
  title: null,
  language: null,
  html: '<span class="image-blocked">Architecture</span>',
  text: "[image: Architecture]",
  requiresReview: false,
  attachmentId: "att_2",
} satisfies BlockView;

const withFiles = (patch: Partial<MessageView> = {}) =>
  messageView({ summary: summary({ status: "delivered", expectsAnswer: false }), attachments: ATTACHMENTS, ...patch });

function renderPane(view: MessageView) {
  return render(MessagePane, { view, onChanged: vi.fn(), onOpen: vi.fn() });
}

beforeEach(() => {
  vi.clearAllMocks();
  URL.createObjectURL = vi.fn(() => "blob:tauri://localhost/img-1");
  URL.revokeObjectURL = vi.fn();
});
afterEach(() => vi.useRealTimers());

describe("attachments", () => {
  it("lists name, type and size, and Save… saves that file", async () => {
    saveAttachment.mockResolvedValue("/home/me/Downloads/report.pdf");
    renderPane(withFiles());

    const row = screen.getByTestId("attachment-att_1");
    expect(within(row).getByTestId("attachment-name").textContent).toBe("report.pdf");
    expect(within(row).getByTestId("attachment-type").textContent).toBe("PDF");
    expect(within(row).getByTestId("attachment-size").textContent).toBe("1.5 kB");
    expect(within(screen.getByTestId("attachment-att_2")).getByTestId("attachment-size").textContent).toBe("2 MB");

    await fireEvent.click(screen.getByTestId("attachment-save-att_1"));
    expect(saveAttachment).toHaveBeenCalledWith("msg-1", "att_1");
    expect((await within(row).findByTestId("attachment-saved")).textContent).toContain("/home/me/Downloads/report.pdf");
  });

  it("shows an expired file as expired, not as an error", async () => {
    saveAttachment.mockRejectedValue(new BackendError({ code: "file_expired", message: "gone" }));
    renderPane(withFiles());
    await fireEvent.click(screen.getByTestId("attachment-save-att_1"));
    const row = screen.getByTestId("attachment-att_1");
    await waitFor(() => expect(row.dataset.state).toBe("gone"));
    expect(within(row).queryByTestId("attachment-expired")).not.toBeNull();
    expect(within(row).queryByTestId("attachment-error"), "no generic error").toBeNull();
    expect((screen.getByTestId("attachment-save-att_1") as HTMLButtonElement).disabled).toBe(true);
  });

  it("does nothing visible when the save dialog is cancelled", async () => {
    saveAttachment.mockResolvedValue(null);
    renderPane(withFiles());
    await fireEvent.click(screen.getByTestId("attachment-save-att_1"));
    await waitFor(() => expect(screen.getByTestId("attachment-att_1").dataset.state).toBe("idle"));
  });
});

describe("image blocks", () => {
  it("renders the attachment's bytes through a blob: URL", async () => {
    attachmentImage.mockResolvedValue(PNG);
    renderPane(withFiles({ blocks: [IMAGE_BLOCK] }));
    const img = (await screen.findByTestId("image-img")) as HTMLImageElement;
    expect(attachmentImage).toHaveBeenCalledWith("msg-1", "att_2");
    expect(img.getAttribute("src"), "a local blob URL, nothing remote").toMatch(/^blob:/);
    expect(img.alt).toBe("Architecture");
    const blob = vi.mocked(URL.createObjectURL).mock.calls[0][0] as Blob;
    expect(blob.type, "typed from the bytes").toBe("image/png");
  });

  it("refuses bytes that are not an image, whatever the type claims", async () => {
    attachmentImage.mockResolvedValue(new TextEncoder().encode("<svg onload=alert(1)>"));
    renderPane(withFiles({ blocks: [IMAGE_BLOCK] }));
    expect(await screen.findByTestId("image-invalid")).not.toBeNull();
    expect(URL.createObjectURL, "no URL is made for it").not.toHaveBeenCalled();
  });

  it("shows an expired image as expired", async () => {
    attachmentImage.mockRejectedValue(new BackendError({ code: "file_expired", message: "gone" }));
    renderPane(withFiles({ blocks: [IMAGE_BLOCK] }));
    expect(await screen.findByTestId("image-expired")).not.toBeNull();
  });
});

describe("file and secret fields", () => {
  const form = () =>
    messageView({
      formSource: "fields",
      fields: [
        field({ id: "token", kind: "secret", label: "API token", required: true }),
        field({ id: "cfg", kind: "secretFile", label: "Kubeconfig", required: true }),
      ],
    });

  it("masks the secret, picks the file, and sends the file by pick id", async () => {
    pickFile.mockResolvedValue({ pickId: "pick_1", name: "kubeconfig", size: 2048 });
    answer.mockImplementation(async (id) => messageView({ summary: summary({ id, status: "answered" }) }));
    renderPane(form());

    const secret = screen.getByTestId("input-token") as HTMLInputElement;
    expect(secret.type, "a secret is a password input").toBe("password");
    expect(secret.getAttribute("autocomplete"), "no autocomplete").toBe("off");

    await fireEvent.click(screen.getByTestId("answer-submit"));
    expect(screen.getByTestId("field-error-cfg").textContent, "the file is required").toBe("Choose a file");
    expect(answer).not.toHaveBeenCalled();

    await fireEvent.input(secret, { target: { value: "s3cr3t-value" } });
    await fireEvent.click(screen.getByTestId("file-pick-cfg"));
    expect((await screen.findByTestId("file-name-cfg")).textContent).toBe("kubeconfig");
    await fireEvent.click(screen.getByTestId("answer-submit"));

    await waitFor(() => expect(answer).toHaveBeenCalledTimes(1));
    const [, input] = answer.mock.calls[0];
    expect(JSON.parse(input.valuesJson ?? "{}"), "the secret goes in the answer").toEqual({ token: "s3cr3t-value" });
    expect(input.files, "the file goes by its pick id, never a path").toEqual({ cfg: "pick_1" });
    await waitFor(() => expect(secret.value, "the secret leaves the form once sent").toBe(""));
    expect(screen.queryByTestId("file-name-cfg"), "and so does the secret file").toBeNull();
  });
});

describe("secret offer", () => {
  const offer = () =>
    messageView({ kind: "secret", summary: summary({ kind: "secret", status: "delivered", expectsAnswer: false, senderName: "vault-bot" }) });

  it("reveals once the sender posted, masked until Show", async () => {
    openSecretOffer.mockResolvedValue(undefined);
    revealSecretOffer.mockResolvedValueOnce(null).mockResolvedValueOnce({ text: "hunter2" });
    renderPane(offer());

    await fireEvent.click(screen.getByTestId("secret-reveal"));
    expect(openSecretOffer).toHaveBeenCalledWith("msg-1");
    expect(await screen.findByTestId("secret-waiting"), "waits for the sender").not.toBeNull();

    const value = await screen.findByTestId("secret-value", {}, { timeout: 3000 });
    expect(revealSecretOffer, "polled until posted").toHaveBeenCalledTimes(2);
    expect(value.dataset.masked).toBe("true");
    expect(value.textContent, "masked at first").not.toContain("hunter2");
    await fireEvent.click(screen.getByTestId("secret-show"));
    expect(screen.getByTestId("secret-value").textContent).toBe("hunter2");
    expect(screen.getByTestId("secret-note").textContent, "says it is shown once and not stored").toMatch(/Shown once and not stored/);
    expect(screen.queryByTestId("secret-copy")).not.toBeNull();
  });

  it("offers no retry once the offer is over for this device", async () => {
    openSecretOffer.mockRejectedValue(
      new BackendError({ code: "invalid_input", message: "this secret was already revealed; it is shown once" }),
    );
    renderPane(offer());
    await fireEvent.click(screen.getByTestId("secret-reveal"));
    expect((await screen.findByTestId("secret-error")).textContent).toContain("already revealed");
    expect(screen.queryByTestId("secret-retry"), "trying again cannot help").toBeNull();
  });

  it("says when the secret was already handed over", async () => {
    openSecretOffer.mockRejectedValue(new BackendError({ code: "secret_collected", message: "gone" }));
    renderPane(offer());
    await fireEvent.click(screen.getByTestId("secret-reveal"));
    expect(await screen.findByTestId("secret-gone")).not.toBeNull();
  });
});
