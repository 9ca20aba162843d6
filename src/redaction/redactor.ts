/**
 * THE redactor: the one place that knows which strings are secret and replaces them with
 * `[redacted]` wherever they would leave the process — inspector snapshots and events, `events$`,
 * `status()`, errors, logs and stderr tails.
 *
 * What is secret, by where it came from (not by what it looks like):
 * - every value of a server's `env` and `headers` (and the credential after `Bearer `/`Basic `, and
 *   a password written into a `url`), through `addServerConfig`;
 * - every environment variable read by a `${VAR}` reference anywhere in the configuration (args,
 *   url and cwd included), through `recordingEnv`;
 * - whatever an auth provider hands out (tokens, client secrets), through `addSecret`;
 * - argument values the host marks secret with its `redactArgument` function, through
 *   `addArguments` (the most recent `maxArgumentSecrets` of them are kept).
 *
 * A secret of `MIN_EMBEDDED_SECRET_LENGTH` characters or more is replaced wherever it appears,
 * inside longer text too, and so are its common encodings (see `secret-forms.ts`): in upper or
 * lower case, URL-encoded, JSON-escaped once or twice, in base64 (standard or url-safe, also
 * inside a longer base64 text); each line of a multi-line value (a PEM key) is a secret of its
 * own. A shorter one (`DEBUG: "1"`) is replaced only where a whole string equals it (in any case),
 * since it cannot be told from ordinary text.
 *
 * @example
 * const redactor = new Redactor();
 * redactor.addServerConfig({ env: { TOKEN: 'tok-1234' }, headers: { Authorization: 'Bearer abcd' } });
 * redactor.redactText('failed with tok-1234'); // 'failed with [redacted]'
 * redactor.redact({ message: 'abcd rejected' }); // { message: '[redacted] rejected' }
 */

import { secretForms, secretLines, type SecretForms } from './secret-forms.js';
import { LiteralMatcher } from './literal-matcher.js';

/** What a secret is replaced with. */
export const REDACTED = '[redacted]';

/** Secrets at least this long are redacted inside longer text as well. */
export const MIN_EMBEDDED_SECRET_LENGTH = 4;

/** The host's say on argument values: true redacts that argument's value (every string in it). */
export type ArgumentRedaction = (argument: { readonly tool: string; readonly name: string; readonly value: unknown }) => boolean;

export interface RedactorOptions {
  readonly redactArgument?: ArgumentRedaction | undefined;
  /** How many argument values marked secret are remembered (oldest forgotten first; default 1024). */
  readonly maxArgumentSecrets?: number;
}

/** The parts of a server configuration that hold secrets. */
export interface SecretBearingConfig {
  readonly env?: Readonly<Record<string, string>> | undefined;
  readonly headers?: Readonly<Record<string, string>> | undefined;
  readonly url?: string | undefined;
}

const RUNTIME_PLACEHOLDER = /\$\{(?:TENANT|SANDBOX_ROOT)\}/;
const SCHEME = /^(?:Bearer|Basic|Token|Bot|Digest)\s+(\S.*)$/i;

export class Redactor {
  readonly #embedded = new Set<string>();
  readonly #whole = new Set<string>();
  readonly #arguments = new Set<string>();
  readonly #redactArgument: ArgumentRedaction | undefined;
  readonly #maxArgumentSecrets: number;
  /** The forms of each secret, computed once (the matcher is rebuilt from them when a secret comes). */
  readonly #forms = new Map<string, SecretForms>();
  #matcher: LiteralMatcher | undefined;
  #stale = false;

  constructor(options: RedactorOptions = {}) {
    this.#redactArgument = options.redactArgument;
    this.#maxArgumentSecrets = options.maxArgumentSecrets ?? 1024;
  }

  /** Whether anything is secret yet (when not, every redaction returns its input as it is). */
  get empty(): boolean {
    return this.#embedded.size === 0 && this.#whole.size === 0 && this.#arguments.size === 0;
  }

  /** Whether the host gave an argument-redaction function (then calls should pass `addArguments`). */
  get redactsArguments(): boolean {
    return this.#redactArgument !== undefined;
  }

  /** Marks one value secret (an auth provider's token, a client secret). Empty values are ignored. */
  addSecret(value: string | undefined): void {
    this.#add(value, this.#embedded);
  }

  /** Marks every `env` and `headers` value of a server secret, and a password written into its `url`. */
  addServerConfig(config: SecretBearingConfig): void {
    for (const value of Object.values(config.env ?? {})) this.#addConfigured(value);
    for (const value of Object.values(config.headers ?? {})) {
      this.#addConfigured(value);
      this.addSecret(SCHEME.exec(value)?.[1]);
    }
    if (config.url) {
      try {
        const url = new URL(config.url);
        if (url.password) {
          this.addSecret(url.password);
          this.addSecret(decodeURIComponent(url.password));
        }
      } catch {
        // Not a URL (validation reports it); nothing to take from it.
      }
    }
  }

  /**
   * A view of `env` that marks every variable read through it secret: pass it where `${VAR}`
   * references are filled in, and every substituted value is redacted from then on.
   */
  recordingEnv(env: Readonly<Record<string, string | undefined>>): Readonly<Record<string, string | undefined>> {
    return new Proxy(env, {
      get: (target, key, receiver) => {
        const value: unknown = Reflect.get(target, key, receiver);
        if (typeof key === 'string' && typeof value === 'string') this.addSecret(value);
        return value;
      },
    });
  }

  /** Applies the host's `redactArgument` to one call's arguments; the values it marks become secret. */
  addArguments(tool: string, args: Readonly<Record<string, unknown>>): void {
    const decide = this.#redactArgument;
    if (!decide) return;
    for (const [name, value] of Object.entries(args)) {
      if (!decide({ tool, name, value })) continue;
      for (const text of stringsIn(value)) {
        for (const secret of [text, ...secretLines(text)]) {
          if (secret === '' || this.#arguments.has(secret) || this.#embedded.has(secret)) continue;
          if (secret.length < MIN_EMBEDDED_SECRET_LENGTH) {
            this.#whole.add(secret.toLowerCase());
            continue;
          }
          this.#arguments.add(secret);
          if (this.#arguments.size > this.#maxArgumentSecrets) {
            const oldest = this.#arguments.values().next().value as string;
            this.#arguments.delete(oldest);
            if (!this.#embedded.has(oldest)) this.#forms.delete(oldest);
          }
          this.#stale = true;
        }
      }
    }
  }

  /** Whether `text` contains a secret (or is one). */
  contains(text: string): boolean {
    if (this.empty) return false;
    if (this.#isWhole(text)) return true;
    return this.#secrets().test(text);
  }

  /** `text` with every secret in it replaced by `[redacted]`. */
  redactText(text: string): string {
    if (this.empty) return text;
    if (this.#isWhole(text)) return REDACTED;
    return this.#secrets().replace(text, REDACTED);
  }

  /**
   * A redacted copy of plain data (strings, arrays, plain objects, errors, also as object keys).
   * What holds no secret is returned as it is (the same object), so the common case costs a walk.
   * Other objects (class instances) are returned unchanged: serialize them first (`toJSON`).
   */
  redact<T>(value: T): T {
    if (this.empty) return value;
    return this.#walk(value, new Map()) as T;
  }

  /**
   * An error with secrets removed from its message, stack, details and cause chain: the same
   * error when it holds none, otherwise a copy of the same class (so `isMcpActorsError` and
   * `instanceof` still hold).
   */
  redactError<E>(error: E): E {
    return this.redact(error);
  }

  /** The runtime's own placeholders are not secret (the tenant is a name); what surrounds them is. */
  #addConfigured(value: string): void {
    for (const part of value.split(RUNTIME_PLACEHOLDER)) this.addSecret(part);
  }

  #add(value: string | undefined, into: Set<string>): void {
    if (typeof value !== 'string' || value === '') return;
    if (value.length < MIN_EMBEDDED_SECRET_LENGTH) {
      this.#whole.add(value.toLowerCase());
      return;
    }
    if (into.has(value)) return;
    into.add(value);
    this.#stale = true;
    for (const line of secretLines(value)) this.#add(line, into);
  }

  /** A short secret is hidden only where a whole string is it (in any case). */
  #isWhole(text: string): boolean {
    return this.#whole.size > 0 && text.length < MIN_EMBEDDED_SECRET_LENGTH && this.#whole.has(text.toLowerCase());
  }

  #secrets(): LiteralMatcher {
    if (this.#stale || this.#matcher === undefined) {
      this.#stale = false;
      const folded: string[] = [];
      const exact: string[] = [];
      for (const secret of new Set([...this.#embedded, ...this.#arguments])) {
        let forms = this.#forms.get(secret);
        if (!forms) {
          forms = secretForms(secret);
          this.#forms.set(secret, forms);
        }
        folded.push(...forms.folded);
        exact.push(...forms.exact);
      }
      this.#matcher = new LiteralMatcher({ folded, exact });
    }
    return this.#matcher;
  }

  #walk(value: unknown, seen: Map<object, unknown>): unknown {
    if (typeof value === 'string') return this.redactText(value);
    if (typeof value !== 'object' || value === null) return value;
    if (seen.has(value)) return seen.get(value);
    if (Array.isArray(value)) {
      const copy: unknown[] = [];
      seen.set(value, copy);
      let changed = false;
      for (const item of value) {
        const redacted = this.#walk(item, seen);
        if (redacted !== item) changed = true;
        copy.push(redacted);
      }
      if (!changed) seen.set(value, value);
      return changed ? copy : value;
    }
    if (value instanceof Error) return this.#walkError(value, seen);
    const proto: unknown = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) return value;
    const copy: Record<string, unknown> = {};
    seen.set(value, copy);
    let changed = false;
    for (const [key, item] of Object.entries(value)) {
      const redactedKey = this.redactText(key);
      const redacted = this.#walk(item, seen);
      if (redacted !== item || redactedKey !== key) changed = true;
      copy[redactedKey] = redacted;
    }
    if (!changed) seen.set(value, value);
    return changed ? copy : value;
  }

  #walkError(error: Error, seen: Map<object, unknown>): Error {
    const copy = Object.create(Object.getPrototypeOf(error) as object) as Error;
    seen.set(error, copy);
    let changed = false;
    const keys = new Set<string | symbol>([...Reflect.ownKeys(error), 'message', 'stack', 'cause']);
    for (const key of keys) {
      const descriptor = Object.getOwnPropertyDescriptor(error, key);
      if (!descriptor) continue;
      if (!('value' in descriptor)) {
        Object.defineProperty(copy, key, descriptor);
        continue;
      }
      const redacted = this.#walk(descriptor.value, seen);
      if (redacted !== descriptor.value) changed = true;
      Object.defineProperty(copy, key, { ...descriptor, value: redacted });
    }
    if (!changed) {
      seen.set(error, error);
      return error;
    }
    return copy;
  }
}

/** Every string inside a value (the value itself, array items, object values), numbers as text. */
function stringsIn(value: unknown, out: string[] = [], depth = 0): string[] {
  if (typeof value === 'string') out.push(value);
  else if (typeof value === 'number' || typeof value === 'bigint') out.push(String(value));
  else if (typeof value === 'object' && value !== null && depth < 20) {
    for (const item of Array.isArray(value) ? value : Object.values(value)) stringsIn(item, out, depth + 1);
  }
  return out;
}

/**
 * The copy of a server's configuration that may be shown: every `headers` and `env` value replaced,
 * the names kept. The server machine's context (so every snapshot, status and inspection event)
 * holds this copy; only the connect actor holds the real one. Returns `config` itself when it has
 * no such value.
 */
export function redactedConfig<
  C extends { readonly headers: Readonly<Record<string, string>>; readonly env: Readonly<Record<string, string>> },
>(config: C): C {
  if (Object.keys(config.headers).length === 0 && Object.keys(config.env).length === 0) return config;
  const hide = (record: Readonly<Record<string, string>>): Readonly<Record<string, string>> =>
    Object.freeze(Object.fromEntries(Object.keys(record).map((key) => [key, REDACTED])));
  return Object.freeze({ ...config, headers: hide(config.headers), env: hide(config.env) });
}
