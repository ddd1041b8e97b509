/**
 * The one "did you mean" of the kit: a mistyped name (a command, a flag of any command, a config-file key, an option
 * of the programmatic API, a profile or selector name) is matched against the names that exist, and the closest one
 * is offered. Every place that refuses a name the user typed asks here, so every such message suggests alike.
 */

/** Edit distance of two words: insertions, deletions, substitutions and swaps of two neighbours (`prot`, `port`). */
function distance(a: string, b: string): number {
  let before: number[] = [];
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) {
      next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        next[j] = Math.min(next[j]!, before[j - 2]! + 1);
    }
    before = row;
    row = next;
  }
  return row[b.length]!;
}

/**
 * The known name closest to a mistyped one: one it starts (3 characters or more), or one within a few edits (1 for a
 * short word, up to 2 for a word of 6 characters or more; case is ignored); undefined when none is that close.
 */
export function closestName(word: string, known: readonly string[]): string | undefined {
  const w = word.toLowerCase();
  const scored = known.map((k) => {
    const l = k.toLowerCase();
    return { k, d: l.startsWith(w) && w.length >= 3 ? 0.5 : distance(w, l) };
  });
  const best = scored.sort((x, y) => x.d - y.d)[0];
  return best && best.d <= Math.min(2, Math.max(1, Math.floor(word.length / 3))) ? best.k : undefined;
}

/**
 * The suggestion clause of a message: `; did you mean 'NAME'?` written as `shown(NAME)` (`--fail-on`, `run`…), or ''
 * when no known name is close. Messages end with it or go on after it.
 */
export function didYouMean(word: string, known: readonly string[], shown: (name: string) => string = (n) => n): string {
  const hit = closestName(word, known);
  return hit === undefined ? '' : `; did you mean '${shown(hit)}'?`;
}
