"""Every ```python block of the README and of the user guide (docs/src) runs, in order,
each in a fresh namespace (and, through the autouse fixture, a ringbus root of its own)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import List, Tuple

import pytest

REPO = Path(__file__).resolve().parents[3]
DOCUMENTS = [REPO / "README.md", *sorted((REPO / "docs" / "src").rglob("*.md"))]


def python_blocks(path: Path) -> List[str]:
    return re.findall(r"^```python\n(.*?)^```", path.read_text(), flags=re.S | re.M)


BLOCKS: List[Tuple[str, int, str]] = [
    (str(path.relative_to(REPO)), index + 1, code)
    for path in DOCUMENTS
    for index, code in enumerate(python_blocks(path))
]


def test_the_readme_and_the_guide_have_python_examples() -> None:
    assert python_blocks(REPO / "README.md")
    assert len(BLOCKS) >= 2


@pytest.mark.parametrize("document,number,code", BLOCKS, ids=[f"{d}#{n}" for d, n, _ in BLOCKS])
def test_python_example(document: str, number: int, code: str) -> None:
    compiled = compile(code, f"{document} python block {number}", "exec")
    exec(compiled, {"__name__": f"doc_example_{number}"})
