#!/usr/bin/env python3
"""Every relative link in the READMEs (Lumen's and the course's) points at a file that exists.

Files move (issue 24's layout moved most of them); a reader who follows a link to nothing loses
the thread, so a change that moves a file must take its links along. A ctest (docs_links).
Usage: scripts/check_links.py [ROOT]
"""
import pathlib
import re
import sys

LINK = re.compile(r"\[[^\]]*\]\(([^)\s#]+)")


def broken_links(root):
    """Yields (document, target) for each relative link whose target does not exist."""
    documents = [root / "README.md", root / "course" / "README.md"]
    documents += sorted(root.glob("course/*/README.md"))
    for document in documents:
        text = document.read_text(encoding="utf-8")
        # Code blocks show commands and code, not links.
        text = re.sub(r"```.*?```", "", text, flags=re.S)
        text = re.sub(r"`[^`\n]*`", "", text)
        for target in LINK.findall(text):
            if "://" in target or target.startswith("mailto:"):
                continue
            if not (document.parent / target).exists():
                yield document.relative_to(root), target


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
    broken = list(broken_links(root))
    for document, target in broken:
        print(f"{document}: link to {target}, which does not exist")
    if broken:
        sys.exit(1)
    print("every relative link in the READMEs points at a file that exists")


if __name__ == "__main__":
    main()
