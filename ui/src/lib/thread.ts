// Threads as conversations: which messages of the inbox belong together, and when the reading
// pane shows the conversation. Pure, so it is tested without a window.

import type { MessageSummary } from "./bindings/MessageSummary";

/** A message that answers an earlier one in its thread (gets the "↳ reply" marker). */
export function isReply(message: MessageSummary): boolean {
  return message.threadSequence > 0;
}

/** The inbox's messages of one thread, oldest first. */
export function threadMembers(messages: MessageSummary[], threadId: string): MessageSummary[] {
  return messages.filter((m) => m.threadId === threadId).sort(oldestFirst);
}

/**
 * Whether the pane should ask the backend for `message`'s conversation: it is a reply, or the
 * inbox holds another message of its thread.
 */
export function mayHaveConversation(messages: MessageSummary[], message: MessageSummary): boolean {
  return isReply(message) || messages.some((m) => m.threadId === message.threadId && m.id !== message.id);
}

/**
 * Changes whenever a message of the thread arrives or changes (id, revision, read and status),
 * so the open conversation reloads then and only then.
 */
export function threadKey(messages: MessageSummary[], threadId: string): string {
  return threadMembers(messages, threadId)
    .map((m) => `${m.id}:${m.revision}:${m.status}:${m.unread ? 1 : 0}`)
    .join("|");
}

/** The conversation is shown when it holds more than the message itself. */
export function showsConversation(conversation: MessageSummary[], currentId: string): boolean {
  return conversation.length > 1 && conversation.some((m) => m.id === currentId);
}

/** Thread order: by position in the thread, then by time, then by id (stable). */
export function oldestFirst(a: MessageSummary, b: MessageSummary): number {
  if (a.threadSequence !== b.threadSequence) return a.threadSequence - b.threadSequence;
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
