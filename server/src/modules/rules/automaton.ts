/**
 * An Aho-Corasick automaton over a fixed set of keywords: one left-to-right pass over a text finds
 * every keyword that occurs in it, however many keywords there are.
 *
 * Memory is proportional to the keyword characters: the trie has at most one node per character,
 * stored as flat typed arrays (children of a node are a sorted run of (char, target) pairs, found by
 * binary search; the root, which most characters return to, has a direct table for ASCII).
 * Characters are UTF-16 code units; callers lower-case both keywords and text.
 */
export class KeywordAutomaton {
  /** Number of keywords; keyword ids are their positions in the list given to build. */
  readonly keywordCount: number;
  /** Trie nodes, the root included. */
  readonly nodeCount: number;

  private readonly edgeStart: Uint32Array;
  private readonly edgeChar: Uint16Array;
  private readonly edgeTarget: Uint32Array;
  private readonly rootAscii: Int32Array;
  private readonly fail: Uint32Array;
  /** The keyword that ends at a node, or -1. */
  private readonly output: Int32Array;
  /** The nearest node on the fail chain that ends a keyword, or -1. */
  private readonly outputLink: Int32Array;

  private constructor(parts: {
    keywordCount: number;
    edgeStart: Uint32Array;
    edgeChar: Uint16Array;
    edgeTarget: Uint32Array;
    rootAscii: Int32Array;
    fail: Uint32Array;
    output: Int32Array;
    outputLink: Int32Array;
  }) {
    this.keywordCount = parts.keywordCount;
    this.nodeCount = parts.fail.length;
    this.edgeStart = parts.edgeStart;
    this.edgeChar = parts.edgeChar;
    this.edgeTarget = parts.edgeTarget;
    this.rootAscii = parts.rootAscii;
    this.fail = parts.fail;
    this.output = parts.output;
    this.outputLink = parts.outputLink;
  }

  /** Builds the automaton; keyword i gets id i. Empty keywords are ignored; duplicates share the first id. */
  static build(keywords: readonly string[]): KeywordAutomaton {
    // Insertion uses one Map keyed by node * 65536 + char; it is dropped once the flat arrays exist.
    const child = new Map<number, number>();
    const nodeChars: number[][] = [[]];
    const nodeTargets: number[][] = [[]];
    const output: number[] = [-1];
    keywords.forEach((keyword, id) => {
      if (keyword.length === 0) return;
      let node = 0;
      for (let i = 0; i < keyword.length; i++) {
        const c = keyword.charCodeAt(i);
        const key = node * 65536 + c;
        let next = child.get(key);
        if (next === undefined) {
          next = output.length;
          child.set(key, next);
          output.push(-1);
          nodeChars.push([]);
          nodeTargets.push([]);
          nodeChars[node]!.push(c);
          nodeTargets[node]!.push(next);
        }
        node = next;
      }
      if (output[node] === -1) output[node] = id;
    });

    const nodes = output.length;
    const edgeStart = new Uint32Array(nodes + 1);
    const edgeChar = new Uint16Array(nodes - 1);
    const edgeTarget = new Uint32Array(nodes - 1);
    let e = 0;
    for (let n = 0; n < nodes; n++) {
      edgeStart[n] = e;
      const chars = nodeChars[n]!;
      const targets = nodeTargets[n]!;
      const order = chars.map((_, i) => i).sort((a, b) => chars[a]! - chars[b]!);
      for (const i of order) {
        edgeChar[e] = chars[i]!;
        edgeTarget[e] = targets[i]!;
        e++;
      }
    }
    edgeStart[nodes] = e;
    const rootAscii = new Int32Array(128).fill(-1);
    for (let i = edgeStart[0]!; i < edgeStart[1]!; i++) {
      if (edgeChar[i]! < 128) rootAscii[edgeChar[i]!] = edgeTarget[i]!;
    }

    // Breadth-first: a node's fail link is the longest proper suffix of its path that is also in the trie.
    const fail = new Uint32Array(nodes);
    const outputLink = new Int32Array(nodes).fill(-1);
    const queue = new Uint32Array(nodes);
    let head = 0;
    let tail = 0;
    for (let i = edgeStart[0]!; i < edgeStart[1]!; i++) queue[tail++] = edgeTarget[i]!;
    while (head < tail) {
      const u = queue[head++]!;
      for (let i = edgeStart[u]!; i < edgeStart[u + 1]!; i++) {
        const c = edgeChar[i]!;
        const v = edgeTarget[i]!;
        let f = fail[u]!;
        let target = -1;
        for (;;) {
          const t = child.get(f * 65536 + c);
          if (t !== undefined) {
            target = t;
            break;
          }
          if (f === 0) break;
          f = fail[f]!;
        }
        fail[v] = target === -1 ? 0 : target;
        const fv = fail[v]!;
        outputLink[v] = output[fv]! >= 0 ? fv : outputLink[fv]!;
        queue[tail++] = v;
      }
    }

    return new KeywordAutomaton({
      keywordCount: keywords.length,
      edgeStart,
      edgeChar,
      edgeTarget,
      rootAscii,
      fail,
      output: Int32Array.from(output),
      outputLink,
    });
  }

  /** Bytes held by the automaton's arrays. */
  byteSize(): number {
    return [
      this.edgeStart,
      this.edgeChar,
      this.edgeTarget,
      this.rootAscii,
      this.fail,
      this.output,
      this.outputLink,
    ].reduce((n, a) => n + a.byteLength, 0);
  }

  /**
   * Finds the distinct keywords that occur in `text` (already lower-cased). A keyword id k is
   * reported once per call: it is written to `found` unless `seen[k] === stamp`, and `seen[k]` is
   * then set to `stamp`. Returns how many ids were written. `seen` needs keywordCount entries and
   * `found` room for as many.
   */
  findAll(text: string, seen: Uint32Array, stamp: number, found: Int32Array): number {
    const { fail, output, outputLink } = this;
    let count = 0;
    let state = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      for (;;) {
        const next = this.step(state, c);
        if (next >= 0) {
          state = next;
          break;
        }
        if (state === 0) break;
        state = fail[state]!;
      }
      let o = output[state]! >= 0 ? state : outputLink[state]!;
      while (o >= 0) {
        const k = output[o]!;
        if (seen[k] !== stamp) {
          seen[k] = stamp;
          found[count++] = k;
        }
        o = outputLink[o]!;
      }
    }
    return count;
  }

  /** The child of `node` along `c`, or -1. */
  private step(node: number, c: number): number {
    if (node === 0 && c < 128) return this.rootAscii[c]!;
    let lo = this.edgeStart[node]!;
    let hi = this.edgeStart[node + 1]! - 1;
    const chars = this.edgeChar;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const m = chars[mid]!;
      if (m === c) return this.edgeTarget[mid]!;
      if (m < c) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }
}
