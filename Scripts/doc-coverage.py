#!/usr/bin/env python3
"""Lists the public symbols of the library modules that have no documentation comment.

A symbol is documented when a `///` line (or the end of a `/** */` block) comes right before
its declaration, above any attributes on lines of their own. Counted: every `public`/`open` declaration, the cases of
public enums and the requirements of public protocols (both public without saying so). Left out:
generated code, the command-line tool and the Pandora server (their API is not the library's).

Usage: doc-coverage.py [--list] [Sources]   exits 1 when a symbol lacks documentation.
"""
import os
import re
import sys

SKIP = ("/Generated", "/StrobeCLI", "/StrobePandora", "/strobe", "/CBlueZ")
TYPE = re.compile(r"^\s*((?:@\w+(?:\([^)]*\))?\s+)*)((?:public|open|package|internal|private|fileprivate)\s+)?"
                  r"(?:final\s+|indirect\s+)*(enum|struct|class|protocol|actor|extension)\s+([\w.]+)")
PUBLIC = re.compile(r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:nonisolated|override|final|static|class|convenience|required)\s+)*"
                    r"(?:public|open)\s+(?!import\b|extension\b)")
ATTRIBUTE = re.compile(r"^\s*(?:@\w+(?:\([^)]*\))?\s*)+$")
CASE = re.compile(r"^\s*(?:indirect\s+)?case\s+[a-z_`]")
REQUIREMENT = re.compile(r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:static\s+|mutating\s+|nonmutating\s+)*"
                         r"(?:func|var|let|init|subscript|associatedtype)\b")


def strip(line):
    """The line without string literals and comments, for counting braces."""
    line = re.sub(r'"(?:\\.|[^"\\])*"', '""', line)
    return line.split("//", 1)[0]


def documented(lines, i):
    j = i - 1
    while j >= 0 and ATTRIBUTE.match(lines[j]):
        j -= 1
    prev = lines[j].strip() if j >= 0 else ""
    return prev.startswith("///") or prev.endswith("*/")


def declared_types(paths):
    """Names of types declared without public access: an extension of one adds no public API."""
    hidden = set()
    for path in paths:
        for line in open(path, encoding="utf-8"):
            m = TYPE.match(line)
            if m and m.group(3) != "extension" and (m.group(2) or "").strip() not in ("public", "open"):
                hidden.add(m.group(4))
    return hidden


def undocumented(path, hidden):
    lines = open(path, encoding="utf-8").read().split("\n")
    stack = []  # (kind, public, depth at which its body opened)
    pending = None  # a type whose header runs on past its first line, until its `{`
    depth = 0
    in_block = False
    missing = []
    for i, line in enumerate(lines):
        text = line
        if in_block:
            if "*/" in text:
                in_block = False
            continue
        if text.strip().startswith("/*") and "*/" not in text:
            in_block = True
            continue
        enclosing = stack[-1] if stack else None
        directly_inside = enclosing is not None and depth == enclosing[2]
        visible = all(entry[1] for entry in stack)
        inside = enclosing[0] if directly_inside else None
        declares = PUBLIC.match(text) \
            or (inside == "enum" and CASE.match(text) and not strip(text).rstrip().endswith(":")) \
            or (inside == "protocol" and REQUIREMENT.match(text))
        if visible and declares and not documented(lines, i):
            missing.append((i + 1, text.strip()))
        m = TYPE.match(text)
        code = strip(text)
        opens, closes = code.count("{"), code.count("}")
        if m:
            access = (m.group(2) or "").strip()
            kind = m.group(3)
            name = m.group(4).split(".")[-1]
            public = access in ("public", "open") or (kind == "extension" and name not in hidden)
            pending = (kind, public) if opens == 0 else None
            if opens > closes:
                stack.append((kind, public, depth + 1))
        elif pending and opens > closes:
            stack.append((pending[0], pending[1], depth + 1))
            pending = None
        depth += opens - closes
        while stack and depth < stack[-1][2]:
            stack.pop()
    return missing


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    root = args[0] if args else "Sources"
    paths = []
    for directory, _, files in os.walk(root):
        if any(part in directory + "/" for part in (s + "/" for s in SKIP)):
            continue
        paths += [os.path.join(directory, name) for name in sorted(files) if name.endswith(".swift")]
    hidden = declared_types(paths)
    total = []
    for path in paths:
        total += [(path, n, t) for n, t in undocumented(path, hidden)]
    if "--list" in sys.argv:
        for path, n, t in sorted(total):
            print(f"{path}:{n}: {t}")
    print(f"doc-coverage: {len(total)} public symbols without documentation")
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
