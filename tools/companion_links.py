"""Every address and install line of the companion, generated from one setting.

The repository's address and the release version live in ``pyproject.toml`` only
(``[project] version`` and ``[project.urls] Repository``); the release a notebook
belongs to is the git tag ``v<version>``. This script writes them into every place a
reader or an instructor meets them:

- each notebook's install cell (``book/*.py``, ``labs/lab*.py``): installs
  ``alice_lab[<extras>] @ git+<repository>@v<version>`` when ``alice_lab`` is missing,
  and says so;
- the "Open in Colab" links (notebooks and docs), pointing at the tagged notebook;
- ``git+`` install lines and ``blob/`` links in the docs and the instructors' workflow
  template;
- ``_config.yml``'s ``repository`` (the site's launch buttons and repository link).

    python tools/companion_links.py --write   # rewrite them all, then regenerate
                                              # the .ipynb pairs and student labs
    python tools/companion_links.py --check   # list every place that disagrees

A fork changes ``Repository`` (and ``version``) in ``pyproject.toml`` and runs
``--write``; ``tests/test_companion_links.py`` fails while any place disagrees.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: Where addresses appear (relative globs).
SOURCES = (
    "book/*.py",
    "book/*.md",
    "labs/lab*.py",
    "labs/instructors/*.yml",
    "docs/*.md",
    "README.md",
    "_config.yml",
)
_GITHUB = r"https://github\.com/[\w.-]+/[\w.-]+?"


@dataclass(frozen=True)
class Release:
    """The one setting: where the repository is and which release notebooks install."""

    repository: str  # e.g. "https://github.com/alice-companion/alice-companion"
    version: str  # e.g. "0.1.0"

    @property
    def tag(self) -> str:
        return f"v{self.version}"

    @property
    def slug(self) -> str:
        """``owner/name``, as Colab's GitHub URLs want it."""
        return self.repository.removeprefix("https://github.com/")

    def colab(self, path: str) -> str:
        return f"https://colab.research.google.com/github/{self.slug}/blob/{self.tag}/{path}"

    def install_cell(self, extras: str) -> str:
        """The notebook's first code cell for ``alice_lab[extras]`` ("" for none)."""
        spec = f"alice_lab[{extras}]" if extras else "alice_lab"
        return (
            f"# Installs alice_lab {self.version}, this notebook's release, when it\n"
            "# is missing (e.g. on Colab); does nothing where it is installed.\n"
            "try:\n"
            "    import alice_lab\n"
            "except ImportError:\n"
            "    import subprocess\n"
            "    import sys\n"
            "\n"
            f'    REPOSITORY = "{self.repository}"\n'
            f'    PACKAGE = f"{spec} @ git+{{REPOSITORY}}@{self.tag}"\n'
            '    print(f"installing {PACKAGE} ...")\n'
            '    subprocess.check_call([sys.executable, "-m", "pip", "install", "-q", '
            "PACKAGE])\n"
            "    import alice_lab\n"
            'print("alice_lab", alice_lab.__version__)\n'
        )


def release(pyproject: Path = ROOT / "pyproject.toml") -> Release:
    """The setting, read from ``pyproject.toml``."""
    project = tomllib.loads(pyproject.read_text())["project"]
    try:
        repository = project["urls"]["Repository"].rstrip("/")
    except KeyError:
        raise SystemExit(
            "pyproject.toml needs [project.urls] Repository = 'https://github.com/...'"
        ) from None
    if not repository.startswith("https://github.com/"):
        raise SystemExit(f"Repository must be a GitHub address; got {repository!r}")
    return Release(repository, project["version"])


# An install cell, from its first comment (if any) to the print after the import.
_INSTALL_CELL = re.compile(
    r"(?:# Installs alice_lab[^\n]*\n(?:#[^\n]*\n)*)?"
    r"try:\n    import alice_lab[^\n]*\nexcept ImportError:(?:[^\n]*\n)*?"
    r"    import alice_lab[^\n]*\n"
    r"(?:print\(\"alice_lab\", alice_lab\.__version__\)\n)?"
)
_EXTRAS = re.compile(r"alice_lab(?:\[([\w,]*)\])? @ git\+")


def _install_cells(text: str, rel: Release) -> str:
    def cell(m: re.Match) -> str:
        found = _EXTRAS.search(m.group(0))
        if found is None:
            raise ValueError(f"an install cell without a package line:\n{m.group(0)}")
        return rel.install_cell(found.group(1) or "")

    return _INSTALL_CELL.sub(cell, text)


def rewrite(text: str, rel: Release, name: str = "") -> str:
    """``text`` (of file ``name``) with every address, ref and install cell generated
    from ``rel``."""
    text = _install_cells(text, rel)
    colab = r"https://colab\.research\.google\.com/github/[\w.-]+/[\w.-]+/blob/[\w.-]+/"
    text = re.sub(colab, rel.colab(""), text)
    pip_line = rf"git\+{_GITHUB}(?:@[\w.-]+)?(?=[\"'\s])"
    text = re.sub(pip_line, f"git+{rel.repository}@{rel.tag}", text)
    text = re.sub(
        rf"{_GITHUB}/blob/[\w.-]+/", f"{rel.repository}/blob/{rel.tag}/", text
    )
    if name == "_config.yml":  # repository: url / branch (launch buttons)
        url = r"(?m)^(  url: )https://github\.com/\S+$"
        text = re.sub(url, rf"\g<1>{rel.repository}", text)
        text = re.sub(r"(?m)^(  branch: )\S+$", rf"\g<1>{rel.tag}", text)
    return text


def sources() -> list[Path]:
    return sorted({p for pattern in SOURCES for p in ROOT.glob(pattern)})


def disagreements(rel: Release | None = None) -> list[str]:
    """The files whose addresses or install cells differ from what ``rel`` generates."""
    rel = rel or release()
    bad = []
    for path in sources():
        text = path.read_text()
        if rewrite(text, rel, path.name) != text:
            bad.append(str(path.relative_to(ROOT)))
    return bad


def write(rel: Release) -> list[Path]:
    changed = []
    for path in sources():
        text = path.read_text()
        new = rewrite(text, rel, path.name)
        if new != text:
            path.write_text(new)
            changed.append(path)
    return changed


def regenerate(changed: list[Path]) -> None:
    """The generated notebooks of the changed sources: .ipynb pairs, student labs."""
    bin_dir = Path(sys.executable).parent
    for path in changed:
        rel = path.relative_to(ROOT)
        if rel.parts[0] == "book" and path.suffix == ".py":
            subprocess.run(
                [sys.executable, ROOT / "tools" / "pair.py", path], check=True
            )
        if rel.parts[0] == "labs" and path.suffix == ".py":
            cmd = [bin_dir / "alice-lab", "make-student", path, "--out"]
            subprocess.run([*cmd, ROOT / "labs" / "student", "--force"], check=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help="rewrite every place")
    mode.add_argument("--check", action="store_true", help="list disagreements")
    args = parser.parse_args(argv)
    rel = release()
    if args.check:
        bad = disagreements(rel)
        for name in bad:
            print(f"{name}: differs from {rel.repository} @ {rel.tag}")
        return 1 if bad else 0
    changed = write(rel)
    regenerate(changed)
    print(f"{len(changed)} files now point at {rel.repository} @ {rel.tag}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
