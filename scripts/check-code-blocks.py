#!/usr/bin/env python3
"""Checks the code blocks of the project's documentation, without building anything.

In README.md, CONTRIBUTING.md, BENCHMARKS.md and the guide (docs/src/**/*.md):
- every fenced code block names its language (```rust, ```python, ```sh, ...);
- every ```python block compiles (`compile()`; pytest runs them: test_readme.py);
- every ```c block that is a whole program (it has a `main`) compiles against
  crates/ringbus-c/include/ringbus.h with -Wall -Wextra -Werror (skipped without `cc`);
- every ```cpp block that is a whole program compiles against ringbus.hpp, the same way
  with -std=c++17 (skipped without `c++`);
- every file with ```rust blocks is compiled as a doctest: README.md and each guide
  chapter are included by crates/ringbus/src/lib.rs.

    python3 scripts/check-code-blocks.py   # exit 1 and one line per problem
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import List, Tuple

REPO = Path(__file__).resolve().parent.parent
GUIDE = REPO / "docs" / "src"
LIB = REPO / "crates" / "ringbus" / "src" / "lib.rs"
HEADER_DIR = REPO / "crates" / "ringbus-c" / "include"


def documents() -> List[Path]:
    top = [REPO / name for name in ("README.md", "CONTRIBUTING.md", "BENCHMARKS.md")]
    return [p for p in top if p.exists()] + sorted(GUIDE.rglob("*.md"))


def blocks(path: Path) -> List[Tuple[int, str, str]]:
    """(line of the opening fence, info string, code) of every fenced block."""
    out = []
    fence = None
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        match = re.match(r"^\s*(```+|~~~+)\s*(.*)$", line)
        if fence is None and match:
            fence, start, info, code = match.group(1), number, match.group(2).strip(), []
        elif fence is not None and line.strip().startswith(fence) and not line.strip()[len(fence) :].strip():
            out.append((start, info, "\n".join(code) + "\n"))
            fence = None
        elif fence is not None:
            code.append(line)
    return out


def compile_c(code: str, where: str, language: str = "c") -> List[str]:
    compiler, suffix, flags = ("cc", "c", []) if language == "c" else ("c++", "cpp", ["-std=c++17"])
    cc = shutil.which(compiler)
    if cc is None:
        return []
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / f"example.{suffix}"
        source.write_text(code)
        run = subprocess.run(
            [cc, "-fsyntax-only", *flags, "-Wall", "-Wextra", "-Werror", f"-I{HEADER_DIR}", str(source)],
            capture_output=True,
            text=True,
        )
    return [] if run.returncode == 0 else [f"{where}: does not compile:\n{run.stderr}"]


def main() -> int:
    errors: List[str] = []
    lib = LIB.read_text(encoding="utf-8")
    counts = {"python": 0, "c": 0, "cpp": 0}
    for path in documents():
        shown = path.relative_to(REPO)
        has_rust = False
        for line, info, code in blocks(path):
            where = f"{shown}:{line}"
            language = re.split(r"[,\s]", info, maxsplit=1)[0] if info else ""
            if not language:
                errors.append(f"{where}: a code block without a language (```rust, ```sh, ```text, ...)")
            elif language == "rust":
                has_rust = True
            elif language == "python":
                counts["python"] += 1
                try:
                    compile(code, where, "exec")
                except SyntaxError as e:
                    errors.append(f"{where}: python does not compile: {e}")
            elif language in ("c", "cpp") and re.search(r"\bmain\s*\(", code):
                counts[language] += 1
                errors += compile_c(code, where, language)
        if has_rust:
            included = f'"{path.relative_to(GUIDE)}"' if path.is_relative_to(GUIDE) else f'/{path.name}")'
            if included not in lib:
                errors.append(f"{shown}: has ```rust blocks, but crates/ringbus/src/lib.rs does not include it as a doctest")
    for error in errors:
        print(error)
    if errors:
        print(f"check-code-blocks: {len(errors)} problem(s)", file=sys.stderr)
        return 1
    print(f"check-code-blocks: every block tagged; {counts['python']} python blocks compile, {counts['c']} C programs and {counts['cpp']} C++ programs compile")
    return 0


if __name__ == "__main__":
    sys.exit(main())
