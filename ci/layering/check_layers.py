#!/usr/bin/env python3
"""Fails when a package uses one in a layer above its own (layers.txt).

Reads every BUILD.bazel (the labels it names, minus those of cc_binary
targets, which are entry points and may name the cli that serves as their
main) and every #include "..." of the C++ sources. Fixture packages hold
data only and are not layered.

    check_layers.py [--root DIR] [--layers FILE]

Prints one line per upward dependency, then a summary; exit 1 if any.
"""
import argparse
import os
import re
import sys

SKIP_DIRS = {".git", "fixtures"}
LABEL = re.compile(r'"(//[A-Za-z0-9_/.-]*)(?::[^"]*)?"')
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
TARGET = re.compile(r'^(\w+)\(\s*$', re.M)


def load_layers(path):
    layers = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            parts = line.split()
            if len(parts) != 2 or not parts[0].isdigit():
                sys.exit(f"{path}:{n}: expected 'RANK PACKAGE', got {line!r}")
            layers.append((parts[1].strip("/"), int(parts[0])))
    if not layers:
        sys.exit(f"{path}: no layers")
    # Longest prefix first, so facts/firewall finds facts before the root.
    layers.sort(key=lambda e: -len(e[0]))
    return layers


def rank_of(pkg, layers):
    pkg = pkg.strip("/")
    for prefix, rank in layers:
        if pkg == prefix or (prefix and pkg.startswith(prefix + "/")):
            return prefix or "//", rank
    return None, None


def build_blocks(text):
    """Yields (rule kind, text of its call) for each top-level rule call."""
    starts = [(m.start(), m.group(1)) for m in TARGET.finditer(text)]
    for i, (pos, kind) in enumerate(starts):
        end = starts[i + 1][0] if i + 1 < len(starts) else len(text)
        yield kind, text[pos:end]


def uses(root):
    """Yields (file, line, user package, used package, what)."""
    for d, dirs, files in os.walk(root):
        rel = os.path.relpath(d, root)
        rel = "" if rel == "." else rel
        dirs[:] = [x for x in dirs
                   if x not in SKIP_DIRS and not x.startswith("bazel-")]
        for fn in files:
            path = os.path.join(d, fn)
            shown = os.path.join(rel, fn)
            if fn in ("BUILD.bazel", "BUILD"):
                text = open(path, encoding="utf-8").read()
                for kind, block in build_blocks(text):
                    if kind == "cc_binary":
                        continue
                    base = text[:text.index(block)].count("\n")
                    for m in LABEL.finditer(block):
                        line = base + block[:m.start()].count("\n") + 1
                        yield shown, line, rel, m.group(1)[2:], m.group(0)
            elif fn.endswith((".cc", ".h")):
                text = open(path, encoding="utf-8", errors="replace").read()
                for m in INCLUDE.finditer(text):
                    inc = m.group(1)
                    if "/" not in inc:
                        continue
                    line = text[:m.start()].count("\n") + 1
                    yield shown, line, rel, os.path.dirname(inc), f'#include "{inc}"'


def main(argv):
    here = os.path.dirname(os.path.realpath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(here)))
    ap.add_argument("--layers", default=os.path.join(here, "layers.txt"))
    args = ap.parse_args(argv)
    layers = load_layers(args.layers)
    bad, seen = [], 0
    for path, line, user, used, what in uses(args.root):
        if used.split("/")[0] in ("fixtures", "visibility"):
            continue
        up, ur = rank_of(user, layers)
        dp, dr = rank_of(used, layers)
        if dr is None:
            continue  # a system or external header (absl/..., gtest/...)
        seen += 1
        if ur is None:
            bad.append(f"{path}:{line}: package {user}/ is in no layer of {args.layers}")
        elif dr > ur:
            bad.append(f"{path}:{line}: {user or '//'} ({up}, layer {ur}) uses "
                       f"{used} ({dp}, layer {dr}) above it: {what}")
    for b in sorted(set(bad)):
        print(b)
    print(f"layering: {seen} dependencies checked, {len(set(bad))} upward")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
