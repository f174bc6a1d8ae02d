// The ApiError a verb refuses with: fails the test when the work succeeds or throws anything else.
import { expect } from "vitest";
import { ApiError } from "../../primitives/errors";

export async function refusal(work: Promise<unknown>): Promise<ApiError> {
  const err = await work.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}
