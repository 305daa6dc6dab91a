/**
 * Optimal string alignment distance: the insertions, deletions, substitutions and swaps of two neighbours (`trails`
 * -> `trials` is one) that turn one string into the other. Used to name the option or field a misspelling meant.
 */
export function editDistance(from: string, to: string): number {
  const rows = Array.from({ length: from.length + 1 }, (_, row) => Array.from({ length: to.length + 1 }, (_, column) => (row === 0 ? column : column === 0 ? row : 0)));
  for (let row = 1; row <= from.length; row += 1) {
    for (let column = 1; column <= to.length; column += 1) {
      const substitution = rows[row - 1][column - 1] + (from[row - 1] === to[column - 1] ? 0 : 1);
      rows[row][column] = Math.min(rows[row - 1][column] + 1, rows[row][column - 1] + 1, substitution);
      if (row > 1 && column > 1 && from[row - 1] === to[column - 2] && from[row - 2] === to[column - 1]) {
        rows[row][column] = Math.min(rows[row][column], rows[row - 2][column - 2] + 1);
      }
    }
  }
  return rows[from.length][to.length];
}
