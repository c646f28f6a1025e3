/** What `promise` rejects with; throws (failing the test) when it resolves instead. */
export async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('resolved');
}
