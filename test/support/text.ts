/** Comparing generated text with the committed file without printing either whole (some are megabytes on one line). */

/** Where two texts first differ. */
export interface TextDifference {
  line: number;
  column: number;
  /** Up to `context` characters either side of the difference in each text. */
  actual: string;
  expected: string;
}

/**
 * The first difference between `actual` and `expected`, or undefined when they are equal: assert
 * `expect(firstDifference(a, b), 'stale: run …').toBeUndefined()` and a failure shows where and what differs.
 */
export function firstDifference(actual: string, expected: string, context = 80): TextDifference | undefined {
  if (actual === expected) return undefined;
  let at = 0;
  while (at < actual.length && at < expected.length && actual[at] === expected[at]) at++;
  const before = actual.slice(0, at);
  const line = before.split('\n').length;
  const column = at - before.lastIndexOf('\n');
  const excerpt = (text: string) => text.slice(Math.max(0, at - context), at + context);
  return { line, column, actual: excerpt(actual), expected: excerpt(expected) };
}
