#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""TAP: every documentation page parses cleanly with docutils.

docutils alone does not know the Sphinx roles and directives the pages use
(``:doc:``, ``toctree``, kernel-doc); they are registered as no-ops here so
that what remains are real markup errors: malformed tables, broken
definition lists, title underlines, unknown lexers. Such a page renders
mangled in a browser and breaks rst2man, so it fails here instead.
"""
import io
import sys

import docutils.core
from docutils import nodes
from docutils.parsers.rst import Directive, directives, roles

SPHINX_ROLES = ("doc", "ref", "c:func", "c:type", "c:macro", "c:member",
                "manpage", "file", "command", "option")
SPHINX_DIRECTIVES = ("toctree", "kernel-doc", "c:function", "c:type",
                     "c:struct", "c:macro")


def literal_role(name, rawtext, text, lineno, inliner, options=None,
                 content=None):
    return [nodes.literal(rawtext, text)], []


class AnyOptions(dict):
    def __contains__(self, key):
        return True

    def __missing__(self, key):
        return directives.unchanged


class Ignored(Directive):
    has_content = True
    optional_arguments = 10
    final_argument_whitespace = True
    option_spec = AnyOptions()

    def run(self):
        return []


def problems(path):
    err = io.StringIO()
    with open(path, encoding="utf-8") as f:
        text = f.read()
    docutils.core.publish_doctree(
        text, source_path=path,
        settings_overrides={"warning_stream": err, "report_level": 2,
                            "halt_level": 5})
    return [line for line in err.getvalue().splitlines()
            if "(WARNING/" in line or "(ERROR/" in line
            or "(SEVERE/" in line]


def main(paths):
    for r in SPHINX_ROLES:
        roles.register_local_role(r, literal_role)
    for d in SPHINX_DIRECTIVES:
        directives.register_directive(d, Ignored)
    print("1..%d" % len(paths))
    failed = 0
    for i, path in enumerate(paths, 1):
        found = problems(path)
        if found:
            failed += 1
            print("not ok %d - %s: %d markup problem(s)" % (i, path,
                                                          len(found)))
            for line in found:
                print("# " + line)
        else:
            print("ok %d - %s parses cleanly" % (i, path))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
