#!/usr/bin/env python3
"""Checks the crate graph against the rules in docs/ARCHITECTURE.md (the table between
`<!-- BEGIN structure -->` and `<!-- END structure -->`), from `cargo metadata --no-deps`:

- each workspace crate's normal dependencies on Herald crates are among those its row allows,
  and a row marked `(optional: feature)` is only an optional dependency;
- herald-testkit is never a normal dependency of a product crate;
- only herald-desktop depends on Tauri, wry or WebKit;
- every workspace crate has a row, and every row names a workspace crate;
- inside each crate listed after `<!-- ACYCLIC: … -->`, the modules form no import circle
  (a top-level module that names `crate::other`, a name the crate root re-exports from
  `other`, or `super::…::other` from the root, depends on `other`; doc links included).

Exit 0 when the graph holds, 1 with one line per breach otherwise.
"""
import json
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
DEV_ONLY = {"herald-testkit", "herald-bench", "herald-fuzz-targets"}
WEBVIEW = re.compile(r"^(tauri|wry|webkit2gtk|tao)(-|$)")


def rules():
    text = (ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    block = text.split("<!-- BEGIN structure -->", 1)[1].split("<!-- END structure -->", 1)[0]
    table = {}
    for line in block.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 2 or cells[0] in ("crate", "") or set(cells[0]) <= set("-"):
            continue
        allowed = {}
        if cells[1] != "—":
            for item in cells[1].split(","):
                m = re.match(r"^\s*(herald-[a-z-]+)\s*(\(optional: `?([a-z-]+)`?\))?\s*$", item)
                if not m:
                    sys.exit(f"check-structure: cannot read {item!r} in the row of {cells[0]}")
                allowed[m.group(1)] = m.group(3)
        table[cells[0]] = allowed
    return table


def acyclic_crates():
    text = (ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    m = re.search(r"<!-- ACYCLIC: ([a-z, -]+) -->", text)
    return [c.strip() for c in m.group(1).split(",")] if m else []


def crate_paths(text):
    """The top-level modules `text` names through `crate::x` or `crate::{x, y::z, …}`."""
    names = set(re.findall(r"crate::([a-z_][a-z0-9_]*)", text))
    for m in re.finditer(r"crate::\{", text):
        depth, item_start, i = 1, True, m.end()
        while i < len(text) and depth:
            c = text[i]
            if c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
            elif c == "," and depth == 1:
                item_start = True
            elif item_start and depth == 1 and (c.isalpha() or c == "_"):
                word = re.match(r"[A-Za-z_][A-Za-z0-9_]*", text[i:]).group(0)
                names.add(word)
                item_start = False
                i += len(word)
                continue
            i += 1
    return names


def root_reexports(src):
    """Names the crate root re-exports from a module (`pub use core::Core;` → Core: core), so
    a use of `crate::Core` counts as a use of `core`."""
    names = {}
    for root in ("lib.rs", "main.rs"):
        path = src / root
        if not path.exists():
            continue
        text = path.read_text(encoding="utf-8")
        for m in re.finditer(r"pub use (?:self::|crate::)?([a-z_][a-z0-9_]*)::([^;]+);", text):
            module, rest = m.group(1), m.group(2)
            for name in re.findall(r"\b([A-Za-z_][A-Za-z0-9_]*)\b(?:\s*[,}]|\s*$)", rest):
                names.setdefault(name, module)
            for alias in re.findall(r"\bas\s+([A-Za-z_][A-Za-z0-9_]*)", rest):
                names.setdefault(alias, module)
    return names


def module_uses(src, path, text, reexports):
    """The top-level modules the file at `path` names: `crate::x`, `crate::{x, …}`, a root
    re-export (`crate::Core`), and `super::…` paths that climb to the crate root."""
    names = crate_paths(text)
    for name in re.findall(r"crate::([A-Z][A-Za-z0-9_]*)", text):
        if name in reexports:
            names.add(reexports[name])
    parts = list(path.relative_to(src).with_suffix("").parts)
    if parts[-1] == "mod":
        parts.pop()
    for m in re.finditer(r"((?:super::)+)([a-z_][a-z0-9_]*)", text):
        up = m.group(1).count("super::")
        if up == len(parts):
            names.add(m.group(2))
    return names


def module_graph(src):
    """Top-level module → {module it names: the first file that does}."""
    reexports = root_reexports(src)
    graph = {}
    for path in sorted(src.rglob("*.rs")):
        top = path.relative_to(src).parts[0].removesuffix(".rs")
        top = "(root)" if top in ("main", "lib") else top
        edges = graph.setdefault(top, {})
        for used in module_uses(src, path, path.read_text(encoding="utf-8"), reexports):
            edges.setdefault(used, str(path.relative_to(src)))
    return {k: {d: f for d, f in v.items() if d in graph and d != k} for k, v in graph.items()}


def module_cycles(src):
    """Import circles between the top-level modules of the crate rooted at `src`: each as the
    sorted modules of one strongly connected component."""
    graph = module_graph(src)
    index, low, stack, on, cycles = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return [
        (cycle, [f"{a} → {b} ({graph[a][b]})" for a in cycle for b in sorted(graph[a]) if b in cycle])
        for cycle in cycles
    ]


def main():
    meta = json.loads(
        subprocess.check_output(
            ["cargo", "metadata", "--no-deps", "--format-version", "1"], cwd=ROOT, text=True
        )
    )
    table = rules()
    crates = {p["name"]: p for p in meta["packages"]}
    breaches = []
    for name in sorted(set(table) - set(crates)):
        breaches.append(f"{name}: has a row in docs/ARCHITECTURE.md but is not a workspace crate")
    for name, package in sorted(crates.items()):
        if name not in table:
            breaches.append(f"{name}: no row in docs/ARCHITECTURE.md's structure table")
            continue
        allowed = table[name]
        for dep in package["dependencies"]:
            kind = dep["kind"] or "normal"
            dep_name = dep["name"]
            if kind == "build":
                continue
            if WEBVIEW.match(dep_name) and name != "herald-desktop":
                breaches.append(f"{name}: depends on {dep_name} ({kind}); only herald-desktop may")
            if kind != "normal" or not dep_name.startswith("herald-"):
                continue
            if dep_name == "herald-testkit" and name not in DEV_ONLY:
                breaches.append(f"{name}: herald-testkit as a normal dependency (dev only)")
            elif dep_name not in allowed:
                breaches.append(f"{name} → {dep_name}: not allowed by docs/ARCHITECTURE.md")
            elif allowed[dep_name] and not dep.get("optional"):
                breaches.append(
                    f"{name} → {dep_name}: must be optional (feature {allowed[dep_name]})"
                )
    for name in acyclic_crates():
        if name not in crates:
            breaches.append(f"{name}: listed as acyclic but is not a workspace crate")
            continue
        src = pathlib.Path(crates[name]["manifest_path"]).parent / "src"
        for cycle, edges in module_cycles(src):
            breaches.append(
                f"{name}: modules import each other in a circle: {', '.join(cycle)}; "
                f"its imports: {'; '.join(edges)}"
            )
    for line in breaches:
        print(f"check-structure: {line}", file=sys.stderr)
    if breaches:
        return 1
    print(f"check-structure: {len(crates)} crates follow docs/ARCHITECTURE.md; no module circle in {len(acyclic_crates())} of them")
    return 0


if __name__ == "__main__":
    sys.exit(main())
