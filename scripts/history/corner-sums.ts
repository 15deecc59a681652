/** A weighted point of the plane. */
export interface WeightedPoint {
  x: number;
  y: number;
  w: number;
}

/**
 * For each query (x, y): the total weight of the points beyond it in x (`p.x > x`, or `>=` when
 * `strictX` is false) and at or below it in y (`p.y <= y`). Answered offline in one sweep down x
 * with a Fenwick tree over y: O((points + queries) log points), where asking each query against
 * every point would make a long history quadratic.
 */
export function cornerSums(points: WeightedPoint[], queries: { x: number; y: number }[], strictX: boolean): number[] {
  // Every point's y, sorted (a typed array sorts numerically, without a comparator); equal ys share a rank.
  const ys = Float64Array.from(points, (p) => p.y).sort();
  const tree = new Float64Array(ys.length + 1);
  const rankAtOrBelow = (y: number): number => {
    let lo = 0;
    let hi = ys.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (ys[mid] <= y) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  // Comparisons, not differences: x may be ±Infinity (an order never shown, a query with no lower cut).
  const desc = (a: number, b: number): number => (a < b ? 1 : a > b ? -1 : 0);
  const byX = [...points].sort((a, b) => desc(a.x, b.x));
  const order = queries.map((_, i) => i).sort((i, j) => desc(queries[i].x, queries[j].x));
  const sums = new Array<number>(queries.length).fill(0);
  let next = 0;
  for (const i of order) {
    const q = queries[i];
    for (; next < byX.length && (strictX ? byX[next].x > q.x : byX[next].x >= q.x); next++) {
      for (let k = rankAtOrBelow(byX[next].y); k <= ys.length; k += k & -k) tree[k] += byX[next].w;
    }
    let sum = 0;
    for (let k = rankAtOrBelow(q.y); k > 0; k -= k & -k) sum += tree[k];
    sums[i] = sum;
  }
  return sums;
}
