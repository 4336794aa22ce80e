/**
 * What the consoles of one tab share: the base URL, the key pair, the id of the last user a
 * create answered with, and the history of requests. Keys live in memory unless the reader opts
 * in to "remember in this tab" (sessionStorage, which dies with the tab; never localStorage).
 * The history holds no key and no signature, so it is kept in sessionStorage too.
 *
 * @module
 */

/** The key pair the reader typed. */
export interface Keys {
  publicKey: string;
  secretKey: string;
}

/** One request sent from a console of this tab; no secret, no signature. */
export interface HistoryEntry {
  /** When it was sent, ISO 8601. */
  at: string;
  operationId: string;
  method: string;
  url: string;
  /** How many bytes were sent. */
  bytes: number;
  /** `201 Created`, or `no answer`. */
  outcome: string;
  /** `valid`, `invalid`, or empty when no answer came. */
  verdict: string;
  ms: number;
}

const keysItem = 'institution-api-console:keys';
const historyItem = 'institution-api-console:history';
/** The most entries kept; older ones are dropped. */
export const historyLimit = 50;

/** The shared state of the consoles of this tab. Listeners hear every change. */
export class ConsoleSession extends EventTarget {
  baseUrl: string;
  keys: Keys = { publicKey: '', secretKey: '' };
  /** Whether the keys are kept in sessionStorage. */
  remember = false;
  /** The id in the last create answer (200 or 201) this tab received. */
  lastUserId = '';
  history: HistoryEntry[] = [];

  /**
   * @param storage the tab's sessionStorage, or undefined where the browser refuses it (the
   *   console then keeps everything in memory)
   */
  constructor(
    private readonly storage: Storage | undefined,
    baseUrl: string,
  ) {
    super();
    this.baseUrl = baseUrl;
    const keys = readJson(storage, keysItem) as Partial<Keys> | undefined;
    if (typeof keys?.publicKey === 'string' && typeof keys.secretKey === 'string') {
      this.keys = { publicKey: keys.publicKey, secretKey: keys.secretKey };
      this.remember = true;
    }
    const history = readJson(storage, historyItem);
    if (Array.isArray(history)) this.history = history.slice(-historyLimit);
  }

  /** Changes the keys; stored only when {@link remember} is on. */
  setKeys(keys: Keys): void {
    this.keys = keys;
    if (this.remember) writeJson(this.storage, keysItem, keys);
    this.changed();
  }

  /** Turns "remember in this tab" on (stores the keys now) or off (forgets the stored copy). */
  setRemember(remember: boolean): void {
    this.remember = remember;
    if (remember) writeJson(this.storage, keysItem, this.keys);
    else removeItem(this.storage, keysItem);
    this.changed();
  }

  setBaseUrl(baseUrl: string): void {
    this.baseUrl = baseUrl;
    this.changed();
  }

  setLastUserId(id: string): void {
    this.lastUserId = id;
    this.changed();
  }

  /** Adds a request to the history (the oldest goes beyond {@link historyLimit}). */
  record(entry: HistoryEntry): void {
    this.history = [...this.history, entry].slice(-historyLimit);
    writeJson(this.storage, historyItem, this.history);
    this.changed();
  }

  private changed(): void {
    this.dispatchEvent(new Event('change'));
  }
}

// A browser may refuse storage (privacy settings, a full quota): the console then simply forgets.
function readJson(storage: Storage | undefined, item: string): unknown {
  try {
    const text = storage?.getItem(item);
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

function writeJson(storage: Storage | undefined, item: string, value: unknown): void {
  try {
    storage?.setItem(item, JSON.stringify(value));
  } catch {
    // not stored: see readJson
  }
}

function removeItem(storage: Storage | undefined, item: string): void {
  try {
    storage?.removeItem(item);
  } catch {
    // nothing stored: see readJson
  }
}
