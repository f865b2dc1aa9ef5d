# SPDX-License-Identifier: MIT
"""Known bug classes: what a failure must look like to be one of them.

Each entry names a bug that is reported and owned (compiler-findings.md,
issue 22) but not fixed on this tree yet. match() looks at a failure and
the (minimized) graph; the bounded run reports a match as TAP TODO naming
the bug, so `make check` stays usable and an unexpected pass shows up,
and the campaign counts it under its id. Remove an entry once the fix has
landed: its seeds then have to pass.
"""

KNOWN = [
]


def match(f, g):
    """The (id, owner, text) of the known bug f is, or None."""
    for kid, owner, text, pred in KNOWN:
        try:
            if pred(f, g):
                return kid, owner, text
        except Exception:
            continue
    return None
