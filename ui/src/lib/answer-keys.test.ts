import { beforeEach, describe, expect, it } from "vitest";
import { ANSWER_KEYS_QUIET_MS, answerKeysArmed, quietAnswerKeys, quietOnFocus, resetAnswerKeys } from "./answer-keys";

describe("answer keys after the window is raised", () => {
  beforeEach(resetAnswerKeys);

  it("stay quiet for a moment after the shell shows something, then answer again", () => {
    expect(answerKeysArmed(1_000), "armed at first").toBe(true);
    quietAnswerKeys(1_000);
    expect(answerKeysArmed(1_000), "not right after").toBe(false);
    expect(answerKeysArmed(1_000 + ANSWER_KEYS_QUIET_MS - 1), "nor just before the end").toBe(false);
    expect(answerKeysArmed(1_000 + ANSWER_KEYS_QUIET_MS), "armed again").toBe(true);
  });

  it("a later raise extends the quiet, an earlier one does not shorten it", () => {
    quietAnswerKeys(5_000);
    quietAnswerKeys(4_000);
    expect(answerKeysArmed(4_000 + ANSWER_KEYS_QUIET_MS), "the later end holds").toBe(false);
  });

  it("are quieted when the window gains the focus", () => {
    const target = new EventTarget();
    const stop = quietOnFocus(target as unknown as Window);
    target.dispatchEvent(new Event("focus"));
    expect(answerKeysArmed(), "focus quiets them").toBe(false);
    stop();
    resetAnswerKeys();
    target.dispatchEvent(new Event("focus"));
    expect(answerKeysArmed(), "not after unsubscribing").toBe(true);
  });
});
