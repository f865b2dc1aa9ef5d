#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Writes the per-section manual pages of libnpurt (npurt_error(3),
npurt_device(3), npurt_stream(3), npurt_memory(3), npurt_model(3),
npurt_online(3), npurt_profile(3)) as reStructuredText from npurt.h.

The header is the reference: each page is one or more of its sections
(the banner comments), with every declaration in SYNOPSIS and, in
DESCRIPTION, each function (or group of functions sharing a comment) with
the header's comment - its thread-safety tag first - verbatim. rst2man
turns the pages into man pages (Documentation/build.mk).

  gen_npurt_pages.py [--check] HEADER OUTDIR

--check compares instead of writing and exits 1 when a page differs
(`make check` runs it: the pages never drift from the header).
"""

import os
import re
import sys

PAGES = [
    ("npurt_error", "status codes and the per-thread last error",
     ["Status and errors"]),
    ("npurt_device", "library initialisation, devices and contexts",
     ["Library and devices", "Contexts", "Several devices"]),
    ("npurt_stream", "streams and events",
     ["Streams and events"]),
    ("npurt_memory", "device memory, copies, images and the caching "
     "allocator", ["Memory", "Images"]),
    ("npurt_model", "loading and running models, execution contexts, "
     "generation", ["Models", "Execution contexts", "Generation"]),
    ("npurt_online", "online compilation: single operators, ONNX models",
     ["Online compilation", "Operator plugins"]),
    ("npurt_profile", "per-task profiles and tensor dumps of executions",
     ["Profiling", "Dumps"]),
]

BANNER = re.compile(r"^/\* ([A-Z][^*]*?)\s*\*/$")


def sections(text):
    """{title: [lines]} of the header's banner sections."""
    out, cur = {}, None
    lines = text.split("\n")
    for i, line in enumerate(lines):
        m = BANNER.match(line)
        if m and i > 0 and lines[i - 1].startswith("/* ----") and \
                i + 1 < len(lines) and lines[i + 1].startswith("/* ----"):
            cur = m.group(1)
            out[cur] = []
            continue
        if cur is not None:
            if line.startswith("/* ----") or line.startswith("#ifdef __cpl"):
                continue
            out[cur].append(line)
    return out


def items(lines):
    """(comment, declaration) pairs: a declaration is a prototype, a
    typedef or a #define; its comment the one right before it (or '')."""
    res, comment, i = [], "", 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("/*"):
            block = [line]
            while not block[-1].rstrip().endswith("*/"):
                i += 1
                block.append(lines[i])
            comment = "\n".join(block)
            i += 1
            continue
        if not line.strip() or line.strip() == "}":
            i += 1
            continue
        if line.startswith("#define"):
            decl = [line]
            while decl[-1].endswith("\\"):
                i += 1
                decl.append(lines[i])
            res.append((comment, "\n".join(decl)))
            comment = ""
            i += 1
            continue
        if line.startswith("#"):
            i += 1
            continue
        decl = [line]
        depth = line.count("{") - line.count("}")
        while not (depth == 0 and decl[-1].rstrip().endswith(";")):
            i += 1
            decl.append(lines[i])
            depth += lines[i].count("{") - lines[i].count("}")
        res.append((comment, "\n".join(decl)))
        comment = ""
        i += 1
    return res


def comment_text(c):
    """The comment's text, without the comment markers."""
    out = []
    for line in c.split("\n"):
        s = line.strip()
        s = re.sub(r"^/\*\*?\s?", "", s)
        s = re.sub(r"\s?\*/$", "", s)
        s = re.sub(r"^\*\s?", "", s)
        out.append(s.rstrip())
    while out and not out[0]:
        out.pop(0)
    while out and not out[-1]:
        out.pop()
    return out


def func_names(decl):
    return re.findall(r"\b(npurt_[a-z0-9_]+)\s*\(", decl)


def indent(lines, n=3):
    return ["%s%s" % (" " * n, l.replace("\t", "        ")) if l else ""
            for l in lines]


def page(name, what, titles, secs):
    heading = "%s - %s" % (name, what)
    out = [".. SPDX-License-Identifier: MIT",
           ".. Generated from libnpurt/include/npurt.h by "
           "Documentation/man/gen_npurt_pages.py: edit the header.", "",
           "=" * len(name), name, "=" * len(name), "",
           "-" * len(what), what, "-" * len(what), "",
           ":Manual section: 3", ":Manual group: NPU stack", "",
           "SYNOPSIS", "========", "", "::", "",
           "   #include <npurt.h>", ""]
    entries = []
    for t in titles:
        key = next(k for k in secs if k.split(":")[0] == t)
        out += indent(["/* %s */" % key, ""])
        for comment, decl in items(secs[key]):
            out += indent(decl.split("\n")) + [""]
            entries.append((comment, decl))
    out += ["   Link with ``$(pkg-config --libs libnpurt)``.", "",
            "DESCRIPTION", "===========", "",
            "The functions of this section of libnpurt, with the header's "
            "own description. The thread-safety tag in brackets is the "
            "one of **npurt**\\ (3): [MT-safe], [handle] or [exclusive]. "
            "Every function returns an **npurt_status** (NPURT_OK = 0) "
            "unless noted; on failure the calling thread's "
            "**npurt_last_error**\\ () says what was found, what was "
            "expected and what to do.", ""]
    # A comment describes the declarations that follow it, up to the
    # next comment.
    groups = []
    for comment, decl in entries:
        names = func_names(decl)
        if not names:
            m = re.search(r"\b(struct|enum) (npurt_[a-z0-9_]+)", decl) or \
                re.search(r"\(\*(npurt_[a-z0-9_]+)\)", decl) or \
                re.search(r"#define (NPURT_[A-Z0-9_]+)", decl)
            names = [m.group(m.lastindex)] if m else []
        if comment or not groups:
            groups.append([comment, names])
        else:
            groups[-1][1] += names
    for comment, names in groups:
        if not names:
            continue
        out.append(", ".join("**%s**" % n for n in names))
        if comment:
            out += ["", "   ::", ""] + indent(comment_text(comment), 6)
        else:
            out += ["", "   See the SYNOPSIS."]
        out.append("")
    see = ["**npurt**\\ (3)"] + ["**%s**\\ (3)" % p[0] for p in PAGES
                                if p[0] != name]
    out += ["SEE ALSO", "========", "",
            ", ".join(see) + "; the documentation's ``runtime.rst``.", ""]
    return "\n".join(out)


def main(argv):
    check = "--check" in argv
    args = [a for a in argv if a != "--check"]
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    with open(args[0]) as f:
        secs = sections(f.read())
    bad = 0
    for name, what, titles in PAGES:
        text = page(name, what, titles, secs)
        path = os.path.join(args[1], name + ".rst")
        if check:
            try:
                with open(path) as f:
                    same = f.read() == text
            except OSError:
                same = False
            if not same:
                print("%s differs from npurt.h: run %s %s %s" % (
                    path, sys.argv[0], args[0], args[1]), file=sys.stderr)
                bad = 1
        else:
            with open(path, "w") as f:
                f.write(text)
    return bad


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
