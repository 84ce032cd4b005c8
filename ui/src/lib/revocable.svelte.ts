// The state behind a settings list of credentials or devices (connections, agent keys,
// connectors, devices): load the list, create one whose secret is shown once, revoke one after
// a confirmation. Components bind to the fields; every failure lands in `error`.

/** The text shown for a failed call: an Error's message, else the value as a string. */
export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** A list with a two-step revoke: `ask(item)` opens its confirmation, `revoke()` acts on it. */
export class RevocableList<T extends { id: string }> {
  items = $state<T[]>([]);
  loading = $state(true);
  error = $state<string | null>(null);
  /** The item whose Revoke was pressed, waiting for Confirm or Cancel. */
  confirming = $state<T | null>(null);
  revoking = $state(false);

  readonly #load: () => Promise<T[]>;
  readonly #revoke: (id: string) => Promise<unknown>;

  /** `load` fetches the whole list; `revoke` revokes one by id. */
  constructor(load: () => Promise<T[]>, revoke: (id: string) => Promise<unknown>) {
    this.#load = load;
    this.#revoke = revoke;
  }

  /** Reloads the list; clears `error` on success. */
  refresh = async (): Promise<void> => {
    try {
      this.items = await this.#load();
      this.error = null;
    } catch (err) {
      this.error = errorText(err);
    } finally {
      this.loading = false;
    }
  };

  /** Opens the confirmation for `item` (clearing any error). */
  ask = (item: T): void => {
    this.confirming = item;
    this.error = null;
  };

  /** Closes the confirmation without revoking. */
  cancel = (): void => {
    this.confirming = null;
  };

  /** Revokes the item being confirmed, then reloads; does nothing while one is in flight. */
  revoke = async (): Promise<void> => {
    const target = this.confirming;
    if (!target || this.revoking) return;
    this.revoking = true;
    this.error = null;
    try {
      await this.#revoke(target.id);
      this.confirming = null;
      await this.refresh();
    } catch (err) {
      this.error = errorText(err);
    } finally {
      this.revoking = false;
    }
  };
}

/** Where a creation reports its error and what it reloads after (a [`RevocableList`]). */
export interface ListHandle {
  error: string | null;
  refresh: () => Promise<void>;
}

/** Creating a named credential whose secret (`fresh`) is shown once, until `done()`. */
export class ShownOnce<F> {
  name = $state("");
  creating = $state(false);
  /** The new credential with its secret; dropped from memory by `done()`. */
  fresh = $state<F | null>(null);

  readonly #list: ListHandle;
  readonly #create: (name: string) => Promise<F>;

  /** `create` makes one from the trimmed name; `list` is reloaded after and gets its errors. */
  constructor(list: ListHandle, create: (name: string) => Promise<F>) {
    this.#list = list;
    this.#create = create;
  }

  /** The form's submit handler: creates from the trimmed name (ignored when blank or busy). */
  create = async (event: SubmitEvent): Promise<void> => {
    event.preventDefault();
    const trimmed = this.name.trim();
    if (!trimmed || this.creating) return;
    this.creating = true;
    this.#list.error = null;
    try {
      this.fresh = await this.#create(trimmed);
      this.name = "";
      await this.#list.refresh();
    } catch (err) {
      this.#list.error = errorText(err);
    } finally {
      this.creating = false;
    }
  };

  /** Drops the secret; it cannot be shown again. */
  done = (): void => {
    this.fresh = null;
  };
}
