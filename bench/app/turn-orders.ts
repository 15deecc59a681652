/**
 * Every order of `count` loads that take turns (all permutations, in lexicographic order). Run
 * one round per order and each load sits in each position, and directly after each other load,
 * equally often: unlike a rotation, in which a load always follows the same neighbour and so
 * always inherits what that one leaves behind (garbage to collect, busy sockets). Meant for a
 * handful of loads (3 give 6 rounds).
 */
export function everyOrder(count: number): number[][] {
  if (count <= 1) return [Array.from({ length: count }, (_, i) => i)];
  const orders: number[][] = [];
  for (const rest of everyOrder(count - 1)) {
    for (let at = 0; at < count; at++) orders.push([...rest.slice(0, at), count - 1, ...rest.slice(at)]);
  }
  return orders.sort((a, b) => a.join().localeCompare(b.join()));
}
