#!/usr/bin/env python3
"""Checks the relative links of the project's documentation, without the network.

Every relative link or image in README.md, CONTRIBUTING.md, BENCHMARKS.md and the guide
(docs/src/**/*.md) must point to a file or directory that exists, and every `#anchor` to
a heading of the file it names (anchors as GitHub and mdBook make them: lower case,
punctuation dropped, spaces to hyphens, `-1`, `-2` ... for repeated headings). Links to
other sites (http:, https:, mailto:) are not checked. Also checks that every chapter of
the guide is listed in docs/src/SUMMARY.md.

    python3 scripts/check-links.py        # exit 1 and one line per broken link
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Dict, Iterator, List, Set, Tuple

REPO = Path(__file__).resolve().parent.parent
GUIDE = REPO / "docs" / "src"

FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
# [text](target) and ![alt](target); the text may hold `code` and nested brackets once.
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+\1")
EXTERNAL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def documents() -> List[Path]:
    top = [REPO / name for name in ("README.md", "CONTRIBUTING.md", "BENCHMARKS.md")]
    return [p for p in top if p.exists()] + sorted(GUIDE.rglob("*.md"))


def prose_lines(text: str) -> Iterator[Tuple[int, str]]:
    """The lines outside fenced code blocks, numbered from 1."""
    fence = None
    for number, line in enumerate(text.splitlines(), 1):
        match = FENCE.match(line)
        if match:
            if fence is None:
                fence = match.group(1)
            elif line.strip().startswith(fence):
                fence = None
            continue
        if fence is None:
            yield number, line


def slug(heading: str) -> str:
    """The anchor GitHub and mdBook give a heading."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link: its text
    text = text.replace("`", "").replace("*", "")
    out = []
    for ch in text.strip().lower():
        if ch.isalnum() or ch in "_-":
            out.append(ch)
        elif ch.isspace():
            out.append("-")
    return "".join(out)


_anchors: Dict[Path, Set[str]] = {}


def anchors(path: Path) -> Set[str]:
    if path not in _anchors:
        seen: Dict[str, int] = {}
        found: Set[str] = set()
        for _, line in prose_lines(path.read_text(encoding="utf-8")):
            match = HEADING.match(line)
            if not match:
                continue
            base = slug(match.group(2))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
        _anchors[path] = found
    return _anchors[path]


def check(path: Path) -> List[str]:
    errors = []
    shown = path.relative_to(REPO)
    for number, line in prose_lines(path.read_text(encoding="utf-8")):
        for match in LINK.finditer(CODE_SPAN.sub("", line)):
            target = match.group(1)
            if EXTERNAL.match(target):
                continue
            file_part, _, anchor = target.partition("#")
            dest = (path.parent / file_part).resolve() if file_part else path
            where = f"{shown}:{number}: {target}"
            if not dest.exists():
                errors.append(f"{where}: no such file {dest.relative_to(REPO) if dest.is_relative_to(REPO) else dest}")
            elif anchor:
                if dest.suffix != ".md" or dest.is_dir():
                    errors.append(f"{where}: an anchor into a file that is not markdown")
                elif anchor not in anchors(dest):
                    errors.append(f"{where}: no heading with anchor #{anchor} in {dest.relative_to(REPO)}")
    return errors


def check_summary() -> List[str]:
    summary = GUIDE / "SUMMARY.md"
    if not summary.exists():
        return ["docs/src/SUMMARY.md is missing"]
    listed = set()
    for _, line in prose_lines(summary.read_text(encoding="utf-8")):
        for match in LINK.finditer(line):
            listed.add((GUIDE / match.group(1).partition("#")[0]).resolve())
    return [
        f"{chapter.relative_to(REPO)}: not listed in docs/src/SUMMARY.md"
        for chapter in sorted(GUIDE.rglob("*.md"))
        if chapter.name != "SUMMARY.md" and chapter.resolve() not in listed
    ]


def main() -> int:
    errors: List[str] = []
    files = documents()
    for path in files:
        errors += check(path)
    errors += check_summary()
    for error in errors:
        print(error)
    if errors:
        print(f"check-links: {len(errors)} broken link(s)", file=sys.stderr)
        return 1
    print(f"check-links: {len(files)} files, every relative link and anchor resolves")
    return 0


if __name__ == "__main__":
    sys.exit(main())
