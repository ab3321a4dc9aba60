#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""File-level call graph of the built tree, and its circles.

Reads the object files of a built tree with nm: a file calls another when
it leaves undefined a symbol the other defines. Prints, per folder (lib,
lib/cli, fsck, mkfs, dump, label), every circle between files (a strongly
connected component of two or more files) and the largest one's size.
A header two files share is not an edge; only a call (or a reference to
a variable) each way makes a circle.

usage: callgraph.py [--builddir DIR] [--edges] [--max-circle N] [FOLDER...]
  --edges         also print every edge "a.c -> b.c (sym, ...)"
  --max-circle N  exit 1 when a circle in the named folders has more than
                  N files (0: no circle at all)
"""
import argparse
import glob
import os
import subprocess
import sys

FOLDERS = ["lib", "lib/cli", "fsck", "mkfs", "dump", "label"]


def source_name(obj):
    """lib/libextkit_la-alloc.o -> lib/alloc.c"""
    d, base = os.path.split(obj)
    base = base[:-2]
    if "-" in base:
        base = base.split("-", 1)[1]
    return os.path.join(d, base + ".c")


def read_symbols(obj):
    out = subprocess.run(["nm", "--defined-only", "-g", obj],
                         capture_output=True, text=True).stdout
    defined = {line.split()[-1] for line in out.splitlines()
               if len(line.split()) == 3}
    out = subprocess.run(["nm", "-u", obj], capture_output=True,
                         text=True).stdout
    undef = {line.split()[-1] for line in out.splitlines() if line.split()}
    return defined, undef


def objects(builddir, folder):
    objs = sorted(glob.glob(os.path.join(builddir, folder, "*.o")))
    return [o for o in objs if not os.path.basename(o).startswith("test")]


# Not a call: lib/cli has each tool's main file define the tool's name
# (the rule of tests/circles.sh, which make check runs).
NOT_CALLS = {"cli_prog"}


def build_graph(builddir, folders):
    defs, uses = {}, {}
    for folder in folders:
        for obj in objects(builddir, folder):
            name = os.path.relpath(source_name(obj), builddir)
            d, u = read_symbols(obj)
            uses[name] = u
            for s in d:
                defs.setdefault(s, name)
    edges = {}
    for name, u in uses.items():
        for s in u:
            if s in NOT_CALLS:
                continue
            to = defs.get(s)
            if to and to != name:
                edges.setdefault(name, {}).setdefault(to, []).append(s)
    return uses.keys(), edges


def sccs(nodes, edges):
    """Tarjan's algorithm, iterative."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]
    for root in sorted(nodes):
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, {}))))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges.get(w, {})))))
                    advanced = True
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--builddir", default=".")
    ap.add_argument("--edges", action="store_true")
    ap.add_argument("--max-circle", type=int, default=None)
    ap.add_argument("folders", nargs="*")
    args = ap.parse_args()
    folders = args.folders or FOLDERS
    worst = 0
    for folder in folders:
        nodes, edges = build_graph(args.builddir, [folder])
        if not nodes:
            print(f"{folder}: no object files (build first)")
            continue
        comps = sorted(sccs(nodes, edges), key=len, reverse=True)
        big = len(comps[0]) if comps else 0
        worst = max(worst, big)
        print(f"{folder}: {len(nodes)} files, {len(comps)} circles, "
              f"largest {big}")
        for c in comps:
            print(f"  circle of {len(c)}: " +
                  " ".join(os.path.basename(f) for f in c))
        if args.edges:
            for a in sorted(edges):
                for b in sorted(edges[a]):
                    print(f"  {a} -> {b} ({', '.join(sorted(edges[a][b]))})")
    if args.max_circle is not None and worst > args.max_circle:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
