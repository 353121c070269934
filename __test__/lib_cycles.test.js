'use strict';
// lib/ has no import cycles: every relative require() in index.js and lib/**/*.js, top-level or
// inside a function, is an edge, and the graph of those edges must be acyclic. A require placed
// inside a function to dodge a cycle is still counted; late binding goes through a setter that
// the higher module calls instead.
const { describe, it } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { createRequire } = require('node:module');

// ESLint's own parser (espree, a dependency of the eslint devDependency), so every file is
// parsed as the linter parses it rather than scanned with a regular expression.
const espree = createRequire(require.resolve('eslint'))('espree');

const root = path.resolve(__dirname, '..');

function jsFiles(dir) {
  const out = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...jsFiles(p));
    else if (e.isFile() && e.name.endsWith('.js')) out.push(p);
  }
  return out;
}

// Every require('<literal>') call anywhere in the tree of `node`.
function requires(node, out = []) {
  if (Array.isArray(node)) {
    for (const n of node) requires(n, out);
  } else if (node && typeof node.type === 'string') {
    if (node.type === 'CallExpression' && node.callee.type === 'Identifier' &&
        node.callee.name === 'require' && node.arguments.length === 1 &&
        node.arguments[0].type === 'Literal' && typeof node.arguments[0].value === 'string') {
      out.push(node.arguments[0].value);
    }
    for (const k of Object.keys(node)) {
      if (k !== 'type' && k !== 'loc' && k !== 'range') requires(node[k], out);
    }
  }
  return out;
}

function resolveLocal(from, spec) {
  const base = path.resolve(path.dirname(from), spec);
  for (const p of [base, `${base}.js`, path.join(base, 'index.js')]) {
    if (fs.existsSync(p) && fs.statSync(p).isFile()) return p;
  }
  return null;
}

function graph() {
  const files = [path.join(root, 'index.js'), ...jsFiles(path.join(root, 'lib'))];
  const edges = new Map();
  const unresolved = [];
  for (const f of files) {
    const ast = espree.parse(fs.readFileSync(f, 'utf8'), {
      ecmaVersion: 'latest', sourceType: 'script',
    });
    const to = new Set();
    for (const spec of requires(ast)) {
      if (!spec.startsWith('./') && !spec.startsWith('../')) continue;
      const target = resolveLocal(f, spec);
      if (target == null) unresolved.push(`${path.relative(root, f)}: ${spec}`);
      // Only edges inside the checked set (binding.js and the addon sit outside lib/).
      else if (target === files[0] || target.startsWith(path.join(root, 'lib') + path.sep)) {
        to.add(target);
      }
    }
    edges.set(f, [...to].sort());
  }
  return { edges, unresolved };
}

// The cycles as strongly connected components (Tarjan), each reported with one concrete loop.
function cycles(edges) {
  let index = 0;
  const idx = new Map();
  const low = new Map();
  const stack = [];
  const on = new Set();
  const sccs = [];
  const visit = (v) => {
    idx.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    on.add(v);
    for (const w of edges.get(v) || []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (on.has(w)) {
        low.set(v, Math.min(low.get(v), idx.get(w)));
      }
    }
    if (low.get(v) === idx.get(v)) {
      const scc = [];
      let w;
      do {
        w = stack.pop();
        on.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || (edges.get(v) || []).includes(v)) sccs.push(scc);
    }
  };
  for (const v of edges.keys()) if (!idx.has(v)) visit(v);
  return sccs.map((scc) => ({ members: scc.sort(), loop: loopIn(edges, new Set(scc), scc[0]) }));
}

// A shortest path from `start` back to itself inside one component.
function loopIn(edges, members, start) {
  const prev = new Map();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const v = queue[i];
    for (const w of edges.get(v) || []) {
      if (!members.has(w)) continue;
      if (w === start) {
        const loop = [v];
        for (let u = v; u !== start; u = prev.get(u)) loop.push(prev.get(u));
        return loop.reverse().concat(start);
      }
      if (!prev.has(w)) {
        prev.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start];
}

describe('lib/ import graph', () => {
  const { edges, unresolved } = graph();

  it('every relative require resolves to a file', () => {
    assert.deepEqual(unresolved, []);
  });

  it('has no cycles', () => {
    const rel = (p) => path.relative(root, p);
    const found = cycles(edges);
    const text = found.map((c) => `${c.loop.map(rel).join(' -> ')}\n    (component of ${c.members.length}: ${c.members.map(rel).join(', ')})`);
    assert.equal(found.length, 0, `import cycles in lib/:\n  ${text.join('\n  ')}`);
  });

  it('sees the requires inside functions too', () => {
    // The walker must not stop at the top level: a require in a nested function is an edge.
    const ast = espree.parse("function f() { return () => require('./x'); }", { ecmaVersion: 'latest' });
    assert.deepEqual(requires(ast), ['./x']);
  });
});
