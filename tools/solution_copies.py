"""Lab solution blocks whose lines reappear in the course package.

For every ``### BEGIN SOLUTION`` ... ``### END SOLUTION`` block of ``labs/lab*.py``,
the block's significant lines (comments and blanks dropped, whitespace collapsed,
``raise`` lines and lines under 14 characters, not counting ``return``, ignored) are
looked up in each module of ``alice_course``; a block counts as copied when at least
half of its significant lines, and at least two of them (the one line of a one-line
block), occur in one module. A single common line such as
``rng = np.random.default_rng(seed)`` is not a copy. A check that judges against a copy
of the solution ships the answer to every student who installs the package.

    python tools/solution_copies.py          # one line per block, COPY marks copies
    python tools/solution_copies.py --copies # only the copies; exit 1 if any
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MIN_CHARS = 14
SHARE = 0.5


@dataclass
class Block:
    lab: str
    line: int
    significant: list[str]
    share: float = 0.0
    module: str = ""

    @property
    def copied(self) -> bool:
        found = round(self.share * len(self.significant))
        return found >= min(2, len(self.significant)) > 0 and self.share >= SHARE


def _normal(line: str) -> str:
    return re.sub(r"\s+", " ", line.split("#", 1)[0].strip())


def _significant(lines: list[str]) -> list[str]:
    out = [_normal(x) for x in lines]
    return [
        x
        for x in out
        if len(x.removeprefix("return ")) >= MIN_CHARS and not x.startswith("raise")
    ]


def solution_blocks(root: Path = ROOT) -> list[Block]:
    blocks = []
    for lab in sorted((root / "labs").glob("lab*.py")):
        text = lab.read_text(encoding="utf-8").splitlines()
        start = None
        for k, line in enumerate(text):
            if "### BEGIN SOLUTION" in line:
                start = k
            elif "### END SOLUTION" in line and start is not None:
                blocks.append(
                    Block(lab.name, start + 1, _significant(text[start + 1 : k]))
                )
                start = None
    return blocks


def find_copies(root: Path = ROOT) -> list[Block]:
    """Every solution block of ``root/labs``, with the module of
    ``root/alice_course`` holding the largest share of its significant lines."""
    modules = {
        p.relative_to(root).as_posix(): {
            _normal(x) for x in p.read_text(encoding="utf-8").splitlines()
        }
        for p in sorted((root / "alice_course").rglob("*.py"))
    }
    blocks = solution_blocks(root)
    for block in blocks:
        for name, lines in modules.items():
            if block.significant:
                share = sum(x in lines for x in block.significant) / len(
                    block.significant
                )
                if share > block.share:
                    block.share, block.module = share, name
    return blocks


def main(argv: list[str]) -> int:
    blocks = find_copies()
    copies = [b for b in blocks if b.copied]
    for b in copies if "--copies" in argv else blocks:
        mark = "COPY" if b.copied else "    "
        print(
            f"{mark} {b.lab}:{b.line} {len(b.significant)} lines, "
            f"{b.share:.0%} in {b.module or '-'}"
        )
    print(f"{len(copies)} of {len(blocks)} solution blocks copied into alice_course")
    return 1 if copies and "--copies" in argv else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
