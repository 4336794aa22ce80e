/**
 * A flow is logic written once for both databases, although SQLite's statements answer at once
 * (node:sqlite is synchronous, and a group commit runs each write as one synchronous function)
 * and PostgreSQL's answer later (pg). A flow is a generator that hands each database call to its
 * runner with `yield* step(call)` and gets the call's answer back: {@link runNow} runs it to the
 * end synchronously, on values; {@link runLater} awaits each promise.
 */
export type Flow<Result> = Generator<unknown, Result, never>;

/** A database call's answer: the value (SQLite) or its promise (PostgreSQL). */
export type Answer<T> = T | Promise<T>;

/** `const value = yield* step(call)`: the answer of `call`, whichever way the runner gets it. */
export function* step<T>(answer: Answer<T>): Generator<Answer<T>, T, T> {
  return yield answer;
}

/** Runs `flow` whose calls answer at once (SQLite), inside the caller's synchronous transaction. */
export function runNow<Result>(flow: Flow<Result>): Result {
  let next = flow.next();
  while (!next.done) next = flow.next(next.value as never);
  return next.value;
}

/** Runs `flow` whose calls answer with promises (PostgreSQL), awaiting each in turn. */
export async function runLater<Result>(flow: Flow<Result>): Promise<Result> {
  let next = flow.next();
  while (!next.done) next = flow.next((await next.value) as never);
  return next.value;
}
