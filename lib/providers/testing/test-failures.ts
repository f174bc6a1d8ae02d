// For Vitest only (it imports vitest's expect; the API tests never load it): the error a run
// failed with, checked to be of the type the test expects.
import { expect } from "vitest";

/** Awaits a run that must fail; its error, checked to be a `type` (any Error unless told). */
export async function failureOf<E extends Error = Error>(
  run: Promise<unknown>,
  type: abstract new (...args: never[]) => E = Error as never,
): Promise<E> {
  const error = await run.then(
    () => null,
    (err: unknown) => err,
  );
  expect(error, "the run failed").toBeInstanceOf(type);
  return error as E;
}
