#!/usr/bin/env python3
"""Rewrites the "## Rules" section of docs/explain.md from tools/diag/rules/.

Run from the tree's root after adding or changing a rule:
    python3 tools/diag/rules_table.py
//ci/docs:explain_doc_test checks that the page lists every rule.
"""
import collections
import glob
import re

DOC = "docs/explain.md"


def main():
    rules = []
    for path in sorted(glob.glob("tools/diag/rules/*.rules")):
        cur = None
        for line in open(path, encoding="utf-8").read().split("\n"):
            m = re.match(r"^rule: (\S+)", line)
            if m:
                cur = {"id": m.group(1), "file": path.split("/")[-1], "ex": None,
                       "confirm": "", "family": ""}
                rules.append(cur)
            elif cur is None:
                continue
            elif line.startswith("family: "):
                cur["family"] = line[8:].strip()
            elif line.startswith("example: ") and cur["ex"] is None:
                cur["ex"] = line[9:]
            elif line.startswith("confirm: "):
                cur["confirm"] = line[9:].strip()
    families = collections.Counter(r["family"] for r in rules)

    def cell(text, n=100):
        text = text.replace("|", "\\|").replace("`", "'")
        return text if len(text) <= n else text[:n] + "..."

    out = [f"{len(rules)} rules: " + ", ".join(f"{k} {v}" for k, v in families.most_common()) +
           ". Order matters: applications first, the\nibv_wc_status table last. Each rule's "
           "first example line:"]
    by_file = collections.OrderedDict()
    for r in rules:
        by_file.setdefault(r["file"], []).append(r)
    for name, rs in by_file.items():
        out.append(f"\n### {name}\n\n| rule | family | first example | confirm with |\n|---|---|---|---|")
        for r in rs:
            out.append(f"| `{r['id']}` | {r['family']} | `{cell(r['ex'] or '')}` | {r['confirm']} |")
    doc = open(DOC, encoding="utf-8").read()
    start = doc.index("## Rules\n")
    end = doc.find("\n## ", start + 1)
    rest = doc[end + 1:] if end >= 0 else ""  # the sections after it, if any
    doc = doc[:start] + "## Rules\n\n" + "\n".join(out) + "\n" + ("\n" + rest if rest else "")
    open(DOC, "w", encoding="utf-8").write(doc)


if __name__ == "__main__":
    main()
