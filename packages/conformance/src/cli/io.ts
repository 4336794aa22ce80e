/** The outside world of one command, injectable for tests. */
export interface CliIo {
  env: Record<string, string | undefined>;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Whether stderr is a terminal (progress is then one line rewritten in place). */
  terminal?: boolean;
  /** Aborted when the process is asked to stop (SIGINT, SIGTERM): the proxy then summarizes. */
  stop?: AbortSignal;
}
