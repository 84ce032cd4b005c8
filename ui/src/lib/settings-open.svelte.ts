// Requests to show a place in Settings, from the shell's open targets (open-target.ts). Like the
// inbox's open requests (inbox.svelte.ts), each is taken — set back to null — by the component
// that shows it, so it applies once and not again when that component is shown later.

/** The Settings tabs an open target leads to. */
export type SettingsPlace = "agents" | "approve";

export class SettingsOpen {
  /** The tab to show; taken by Settings.svelte. */
  tab = $state.raw<{ place: SettingsPlace } | null>(null);
  /** A connector code to fill in, waiting for the person's Approve; taken by AgentConnectors.svelte. */
  connector = $state.raw<{ userCode: string } | null>(null);

  /** Settings → Agents with the connector approval filled in with `userCode`. */
  showConnector(userCode: string): void {
    this.connector = { userCode };
    this.tab = { place: "agents" };
  }

  /** Settings → "Approve a new device". */
  showApproveDevice(): void {
    this.connector = null;
    this.tab = { place: "approve" };
  }

  /** Drops requests nobody took (the person went elsewhere first). */
  clear(): void {
    this.tab = null;
    this.connector = null;
  }
}

export const settingsOpen = new SettingsOpen();
