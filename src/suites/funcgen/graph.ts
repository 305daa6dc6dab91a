/**
 * The function dependency DAG (paper section 3.2 and appendix A.1). Nodes are functions; an edge
 * (parent, child) means the child consumes the parent's output.
 *
 * 1. Core: a chain of d+1 nodes realises depth d and ends at the target; the remaining
 *    n_core - (d+1) nodes are added one by one as new parents of existing core nodes, only where
 *    the longest path stays within d (so every core node is an ancestor of the target and the
 *    target is the only core sink); then up to 2·n_core extra core edges, each kept only if it
 *    keeps the graph acyclic and the depth at d.
 * 2. CINs: each is a child of 1–2 random core nodes (consumes core outputs, never needed).
 * 3. DINs: isolated nodes, then at most floor(n_dis/2) edges among them, acyclic by construction
 *    (only from an earlier to a later DIN).
 */
import type { Rng } from '../../core/rng.ts';

export type NodeRole = 'core' | 'connected' | 'disconnected';

export type FunctionGraph = {
  /** Role of each node; node ids are indexes. Core nodes come first. */
  roles: NodeRole[];
  /** [parent, child] pairs. */
  edges: [number, number][];
  target: number;
};

export type GraphShape = { core: number; depth: number; connected: number; disconnected: number };

/** Extra core edges tried per wanted edge before giving up (most random pairs would break acyclicity or depth). */
const attemptsPerEdge = 5;

export function buildFunctionGraph(rng: Rng, shape: GraphShape): FunctionGraph {
  const { core, depth, connected, disconnected } = shape;
  const roles: NodeRole[] = [];
  const edges: [number, number][] = [];
  const parents: number[][] = [];
  const addNode = (role: NodeRole): number => {
    roles.push(role);
    parents.push([]);
    return roles.length - 1;
  };
  const addEdge = (parent: number, child: number): void => {
    edges.push([parent, child]);
    parents[child].push(parent);
  };

  // 1a. The chain 0 -> 1 -> ... -> depth; the last node is the target.
  for (let index = 0; index <= depth; index += 1) {
    const node = addNode('core');
    if (index > 0) addEdge(node - 1, node);
  }
  const target = depth;
  // Longest path (in edges) from each core node down to the target.
  const down: number[] = Array.from({ length: depth + 1 }, (_, index) => depth - index);

  // 1b. Remaining core nodes as new parents, only of nodes that leave room within the depth.
  while (roles.length < core) {
    const eligible = down.flatMap((distance, node) => (distance <= depth - 1 ? [node] : []));
    const child = rng.pick(eligible);
    const node = addNode('core');
    addEdge(node, child);
    down[node] = down[child] + 1;
  }

  // 1c. Up to 2·n_core extra core edges that keep it acyclic and the longest path at d. The longest
  // paths are updated incrementally per added edge (recomputing them per edge dominated generation).
  const wanted = rng.int(0, 2 * core);
  let added = 0;
  const { up, down: downToSink } = longestPaths(core, edges);
  const children: number[][] = Array.from({ length: core }, () => []);
  for (const [parent, child] of edges) children[parent].push(child);
  const reach = createReachability(core);
  for (let attempt = 0; attempt < wanted * attemptsPerEdge && added < wanted; attempt += 1) {
    const from = rng.int(0, core - 1);
    const to = rng.int(0, core - 1);
    if (from === to || parents[to].includes(from)) continue;
    if (up[from] + 1 + downToSink[to] > depth) continue;
    if (reach.reaches(children, to, from)) continue;
    addEdge(from, to);
    children[from].push(to);
    raiseUp(children, up, to, up[from] + 1);
    raiseDown(parents, downToSink, from, downToSink[to] + 1);
    added += 1;
  }

  // 2. CINs: children of random core nodes.
  const coreNodes = Array.from({ length: core }, (_, index) => index);
  for (let index = 0; index < connected; index += 1) {
    const node = addNode('connected');
    for (const parent of rng.sample(coreNodes, rng.int(1, Math.min(2, core)))) addEdge(parent, node);
  }

  // 3. DINs: isolated, then at most floor(n_dis/2) forward edges among them.
  const first = roles.length;
  for (let index = 0; index < disconnected; index += 1) addNode('disconnected');
  if (disconnected >= 2) {
    const wantedDisconnected = rng.int(0, Math.floor(disconnected / 2));
    let addedDisconnected = 0;
    for (let attempt = 0; attempt < wantedDisconnected * attemptsPerEdge && addedDisconnected < wantedDisconnected; attempt += 1) {
      const [from, to] = [rng.int(first, roles.length - 1), rng.int(first, roles.length - 1)];
      if (from >= to || parents[to].includes(from)) continue;
      addEdge(from, to);
      addedDisconnected += 1;
    }
  }
  return { roles, edges, target };
}

/** Sets up[node] to at least `value` and carries the rise to its descendants (the graph is a DAG). */
function raiseUp(children: readonly number[][], up: number[], node: number, value: number): void {
  if (up[node] >= value) return;
  up[node] = value;
  for (const child of children[node]) raiseUp(children, up, child, value + 1);
}

/** Sets down[node] to at least `value` and carries the rise to its ancestors. */
function raiseDown(parents: readonly number[][], down: number[], node: number, value: number): void {
  if (down[node] >= value) return;
  down[node] = value;
  for (const parent of parents[node]) raiseDown(parents, down, parent, value + 1);
}

/** Depth-first reachability with a reused stack and visit stamps, so a query allocates nothing. */
function createReachability(count: number) {
  const stamps = new Uint32Array(count);
  const stack: number[] = [];
  let stamp = 0;
  return {
    reaches(children: readonly number[][], from: number, to: number): boolean {
      stamp += 1;
      stack.length = 0;
      stack.push(from);
      while (stack.length > 0) {
        const node = stack.pop() as number;
        if (node === to) return true;
        if (stamps[node] === stamp) continue;
        stamps[node] = stamp;
        for (const child of children[node]) stack.push(child);
      }
      return false;
    },
  };
}

/**
 * Longest paths (in edges) within the first `count` nodes: `up[v]` from any source to v, `down[v]`
 * from v to any sink; `reaches(a, b)` is true when b is reachable from a.
 */
export function longestPaths(count: number, edges: readonly [number, number][]) {
  const children: number[][] = Array.from({ length: count }, () => []);
  const parentLists: number[][] = Array.from({ length: count }, () => []);
  for (const [parent, child] of edges) {
    if (parent < count && child < count) {
      children[parent].push(child);
      parentLists[child].push(parent);
    }
  }
  const order = topologicalOrder(count, edges);
  if (order === undefined) throw new Error('longestPaths: the graph has a cycle');
  const up = new Array<number>(count).fill(0);
  const down = new Array<number>(count).fill(0);
  for (const node of order) for (const parent of parentLists[node]) up[node] = Math.max(up[node], up[parent] + 1);
  for (const node of [...order].reverse()) for (const child of children[node]) down[node] = Math.max(down[node], down[child] + 1);
  const reaches = (from: number, to: number): boolean => {
    const stack = [from];
    const seen = new Set<number>();
    while (stack.length > 0) {
      const node = stack.pop() as number;
      if (node === to) return true;
      if (seen.has(node)) continue;
      seen.add(node);
      stack.push(...children[node]);
    }
    return false;
  };
  return { up, down, reaches, longest: Math.max(0, ...up) };
}

/** Kahn's algorithm over nodes [0, count), lowest id first; undefined when there is a cycle. */
export function topologicalOrder(count: number, edges: readonly [number, number][]): number[] | undefined {
  // Children in flat typed arrays (offsets per node), not an array per node: this runs once per task.
  const indegree = new Int32Array(count);
  const offsets = new Int32Array(count + 1);
  for (const [parent, child] of edges) {
    if (parent < count && child < count) {
      indegree[child] += 1;
      offsets[parent + 1] += 1;
    }
  }
  for (let node = 0; node < count; node += 1) offsets[node + 1] += offsets[node];
  const children = new Int32Array(offsets[count]);
  const filled = offsets.slice(0, count);
  for (const [parent, child] of edges) if (parent < count && child < count) children[filled[parent]++] = child;
  const ready: number[] = [];
  for (let node = 0; node < count; node += 1) if (indegree[node] === 0) ready.push(node);
  const order: number[] = [];
  while (ready.length > 0) {
    // The lowest ready id: a scan, not a sort per step (graphs are small).
    let lowest = 0;
    for (let index = 1; index < ready.length; index += 1) if (ready[index] < ready[lowest]) lowest = index;
    const node = ready[lowest];
    ready[lowest] = ready[ready.length - 1];
    ready.pop();
    order.push(node);
    for (let index = offsets[node]; index < offsets[node + 1]; index += 1) {
      const child = children[index];
      indegree[child] -= 1;
      if (indegree[child] === 0) ready.push(child);
    }
  }
  return order.length === count ? order : undefined;
}
