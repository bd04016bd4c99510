#!/usr/bin/env python3
"""Module graph of a Rust crate's production code, and its import cycles.

Usage: python3 docs/modgraph.py SRC_DIR [PREFIX] [--outside] [--edges]
       (python3 docs/modgraph.py src transcript: the cycles inside src/transcript/)

Every file is a module. An edge A -> B means A's production code (items under #[cfg(test)],
and modules declared under it, left out) names a path into module B: a `use` line or a path
written inline (crate::…, super::…, self::…, or a child module's name). A path through a
re-export (`pub use`) is followed to the module that defines the item. Prints each strongly
connected component of more than one module among the modules under PREFIX, with its edges
(nothing when there is no cycle); --outside adds the edges from those modules to modules
outside PREFIX, --edges every edge among them.
"""
import os
import re
import sys
from collections import defaultdict


def strip(text):
    """The code with comments, strings and char literals blanked, same length."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "r" and re.match(r'r#*"', text[i:]) and not re.match(r"\w", text[i - 1] if i else " "):
            m = re.match(r'r(#*)"', text[i:])
            hashes = m.group(1)
            end = text.find('"' + hashes, i + len(m.group(0)))
            j = n if end < 0 else end + 1 + len(hashes)
            out.append('""' + re.sub(r"[^\n]", " ", text[i + 2 : j]))
            i = j
        elif c == "b" and i + 1 < n and text[i + 1] in "\"'" and not re.match(r"\w", text[i - 1] if i else " "):
            out.append(" ")
            i += 1
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append('"' + re.sub(r"[^\n]", " ", text[i + 1 : j]) + '"')
            i = j + 1
        elif c == "'":
            m = re.match(r"'(\\.|\\u\{[0-9a-fA-F]+\}|\\x[0-9a-fA-F]{2}|[^\\'])'", text[i:])
            if m:
                out.append(" " * len(m.group(0)))
                i += len(m.group(0))
            else:  # a lifetime
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def drop_tests(code):
    """The code without items under #[cfg(test)]."""
    while True:
        m = re.search(r"#\[cfg\(test\)\]", code)
        if not m:
            return code
        i = m.end()
        # The item runs to its matching close brace, or to a semicolon before any brace.
        depth, j = 0, i
        while j < len(code):
            if code[j] == "{":
                depth += 1
            elif code[j] == "}":
                depth -= 1
                if depth == 0:
                    j += 1
                    break
            elif code[j] == ";" and depth == 0:
                j += 1
                break
            j += 1
        code = code[: m.start()] + re.sub(r"[^\n]", " ", code[m.start() : j]) + code[j:]


def modules(src):
    """Module path (tuple) -> file, for every .rs file under src."""
    found = {}
    for root, _, files in os.walk(src):
        for name in files:
            if not name.endswith(".rs"):
                continue
            path = os.path.join(root, name)
            rel = os.path.relpath(path, src)[:-3].split(os.sep)
            if rel in (["lib"], ["main"]):
                mod = ()
            elif rel[-1] == "mod":
                mod = tuple(rel[:-1])
            else:
                mod = tuple(rel)
            found[mod] = path
    return found


def use_paths(code):
    """Every path a `use` item names, expanded (a::{b, c::d} -> a::b, a::c::d)."""
    paths = []

    def expand(prefix, tree):
        tree = tree.strip()
        if not tree:
            return
        if tree.startswith("{"):
            inner = tree[1:-1]
            depth, start = 0, 0
            for k, ch in enumerate(inner + ","):
                if ch == "{":
                    depth += 1
                elif ch == "}":
                    depth -= 1
                elif ch == "," and depth == 0:
                    expand(prefix, inner[start:k])
                    start = k + 1
            return
        m = re.match(r"([\w]+)\s*::\s*(.*)$", tree, re.S)
        if m:
            expand(prefix + [m.group(1)], m.group(2))
        else:
            name = re.split(r"\s+as\s+", tree)[0].strip()
            paths.append(prefix + [name])

    for m in re.finditer(r"\buse\s+([^;]+);", code):
        expand([], m.group(1))
    return paths


def inline_paths(code):
    """Paths written in code: a::b::c (at least one ::)."""
    code = re.sub(r"\buse\s+[^;]+;", " ", code)
    return [
        re.split(r"\s*::\s*", m.group(0))
        for m in re.finditer(r"(?<![\w:])[a-z_][\w]*(\s*::\s*[A-Za-z_][\w]*)+", code)
    ]


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    src = args[0]
    prefix = tuple(args[1].split("::")) if len(args) > 1 else ()
    mods = modules(src)
    raw = {m: strip(open(p).read()) for m, p in mods.items()}
    # Modules declared under #[cfg(test)] (`#[cfg(test)] mod tests;`) are test code whole.
    tests = {
        m + (t,)
        for m, code in raw.items()
        for t in re.findall(r"#\[cfg\(test\)\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;", code)
    }
    mods = {m: p for m, p in mods.items() if not any(m[: len(t)] == t for t in tests)}
    codes = {m: drop_tests(raw[m]) for m in mods}
    # Re-exports: (module, name) -> path it points to.
    reexports = {}
    for m, code in codes.items():
        for um in re.finditer(r"\bpub(?:\([^)]*\))?\s+use\s+([^;]+);", code):
            for path in use_paths("use " + um.group(1) + ";"):
                reexports[(m, path[-1])] = absolute(m, path, mods)

    def resolve(path):
        """The module defining what `path` (absolute) names."""
        seen = 0
        while path is not None and seen < 20:
            seen += 1
            k = len(path)
            while k > 0 and tuple(path[:k]) not in mods:
                k -= 1
            mod = tuple(path[:k])
            if k < len(path) and (mod, path[k]) in reexports:
                path = reexports[(mod, path[k])] + path[k + 1 :]
                continue
            return mod
        return None

    edges = defaultdict(set)
    for m, code in codes.items():
        for path in use_paths(code) + inline_paths(code):
            target = absolute(m, path, mods)
            if target is None:
                continue
            t = resolve(target)
            if t is not None and t != m and t != ():
                edges[m].add(t)
    inside = lambda m: m[: len(prefix)] == prefix
    graph = {m: {t for t in edges[m] if inside(t)} for m in mods if inside(m)}
    for comp in sccs(graph):
        if len(comp) > 1:
            print(f"cycle of {len(comp)}: " + ", ".join(sorted("::".join(c) for c in comp)))
            for a in sorted(comp):
                for b in sorted(graph[a] & set(comp)):
                    print(f"    {'::'.join(a)} -> {'::'.join(b)}")
    if "--outside" in sys.argv:
        for m in sorted(graph):
            for t in sorted(edges[m]):
                if not inside(t):
                    print(f"outside: {'::'.join(m)} -> {'::'.join(t)}")
    if "--edges" in sys.argv:
        for m in sorted(graph):
            print("::".join(m), "->", ", ".join(sorted("::".join(t) for t in graph[m])))


def absolute(module, path, mods):
    """`path` as written in `module`, made absolute; None for paths outside the crate."""
    path = list(path)
    if not path:
        return None
    head = path[0]
    if head == "crate":
        return path[1:]
    if head == "self":
        return list(module) + path[1:]
    if head == "super":
        base = list(module)
        while path and path[0] == "super":
            base = base[:-1]
            path = path[1:]
        return base + path
    if tuple(list(module) + [head]) in mods:
        return list(module) + path
    return None


def sccs(graph):
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in graph:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(comp)

    sys.setrecursionlimit(10000)
    for v in graph:
        if v not in index:
            visit(v)
    return out


if __name__ == "__main__":
    main()
