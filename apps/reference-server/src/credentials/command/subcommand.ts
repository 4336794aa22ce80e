import type { CredentialEvent, SignaturePolicy, Storage } from '../../storage/types.js';

/** A subcommand was called wrongly (exit 2, with its usage); the message says how. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** What a subcommand runs with, once its arguments were read and the database opened. */
export interface CommandContext {
  storage: Storage;
  /** Who the events are recorded as: the OS user. */
  actor: string;
  now: () => number;
  /** Writes the result on stdout. */
  print(text: string): void;
  /** Writes `<command>: <why>` on stderr, one line; returns the exit code 1 (not found, refused). */
  refuse(why: string): number;
  /** Logs the events the subcommand recorded, one line each (on stderr). */
  logEvents(events: readonly CredentialEvent[]): void;
}

/** The values node:util parseArgs gives. */
export type ParsedValues = Record<string, string | boolean | undefined>;

/** One subcommand of `credentials` (see run.ts). */
export interface Subcommand<Args> {
  /** Its usage line after the command's name, e.g. `revoke PUBLIC_KEY [--reason TEXT]`. */
  usage: string;
  /** What it does, a few lines of the help. */
  summary: string;
  /** Its options, for node:util parseArgs. */
  options: Record<string, { type: 'string' | 'boolean' }>;
  /** Checks the arguments before the database is opened; throws {@link UsageError}. */
  read(values: ParsedValues, positionals: string[]): Args;
  /** Needs CREDENTIALS_ENCRYPTION_KEY_PREVIOUS (reencrypt). */
  needsPreviousKey?: boolean;
  /** Runs it; resolves with the exit code (0 done, 1 not found or refused). */
  run(args: Args, context: CommandContext): Promise<number>;
}

/** The trimmed, non-empty value of a string option, or undefined when absent. */
export function stringOption(values: ParsedValues, name: string): string | undefined {
  const value = values[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.trim() === '') {
    throw new UsageError(`--${name} needs a value.`);
  }
  return value.trim();
}

/** Refuses positional arguments beyond `count`. */
export function expectPositionals(positionals: string[], count: number): void {
  if (positionals.length > count) {
    throw new UsageError(`Unexpected argument "${positionals[count]}".`);
  }
}

/** What `list` and `log` read: `[--institution NAME] [--json]`. */
export interface InstitutionFilter {
  /** Only this institution's (by name); absent: every institution's. */
  institution?: string;
  /** JSON instead of a table. */
  json: boolean;
}

/** The options of `list` and `log`, which show records of every institution or of one. */
export const institutionFilter: Pick<Subcommand<InstitutionFilter>, 'options' | 'read'> = {
  options: { institution: { type: 'string' }, json: { type: 'boolean' } },
  read(values, positionals) {
    expectPositionals(positionals, 0);
    const institution = stringOption(values, 'institution');
    return { ...(institution ? { institution } : {}), json: values.json === true };
  },
};

/**
 * `--require-message-signature` of `issue` and `rotate`: the new pair's policy is then
 * `message-signature` (its requests need an RFC 9421 message signature), else `any`.
 */
export const signaturePolicyOption = {
  options: { 'require-message-signature': { type: 'boolean' } },
  read(values: ParsedValues): SignaturePolicy {
    return values['require-message-signature'] === true ? 'message-signature' : 'any';
  },
} as const satisfies {
  options: Subcommand<unknown>['options'];
  read(values: ParsedValues): SignaturePolicy;
};
