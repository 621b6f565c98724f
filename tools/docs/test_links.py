"""Every relative link in README.md and docs/*.md leads somewhere: python3 -m pytest tools/docs

A link's file (or folder) must exist in the repository, a `#anchor` must name a heading of the
Markdown file it points into (as GitHub makes anchors from headings), and nothing may lead out of
the repository: a user's clone has no ../shared beside it. Links to full URLs are not fetched.
"""

import os
import re
import unicodedata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

FENCE = re.compile(r"^\s*(```|~~~)")
# [text](target) and ![alt](target); the target may be <...> and may carry a "title".
INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*(<[^>]*>|[^)\s]*)(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE_DEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*(\S+)")
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def documents(root=ROOT):
    """The files whose links are checked: README.md and docs/*.md."""
    docs = sorted((root / "docs").glob("*.md"))
    return [root / "README.md"] + docs


def prose_lines(text):
    """(line number, line) outside fenced code blocks."""
    fenced = False
    for number, line in enumerate(text.split("\n"), 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            yield number, line


def links(text):
    """(line number, target) of every inline link, image and reference definition."""
    for number, line in prose_lines(text):
        line = CODE_SPAN.sub("", line)
        for match in INLINE_LINK.finditer(line):
            yield number, match.group(1).strip("<>")
        match = REFERENCE_DEF.match(line)
        if match:
            yield number, match.group(1).strip("<>")


def slug(heading):
    """GitHub's anchor for a heading's text: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link keeps its text
    text = re.sub(r"<[^>]+>", "", text).strip().lower()
    text = "".join(c for c in text if c in " -_" or unicodedata.category(c)[0] in "LNM")
    return text.replace(" ", "-")


def anchors(path):
    """Every anchor the headings of a Markdown file give, duplicates numbered as GitHub does."""
    seen = {}
    result = set()
    for _, line in prose_lines(path.read_text(encoding="utf-8")):
        match = re.match(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$", line)
        if not match:
            continue
        base = slug(match.group(2))
        count = seen.get(base, 0)
        seen[base] = count + 1
        result.add(base if count == 0 else f"{base}-{count}")
    return result


def problems(document, root=ROOT):
    """What is wrong with a document's links, one message each (file:line: what)."""
    root = root.resolve()
    text = document.read_text(encoding="utf-8")
    name = document.relative_to(root)
    found = []
    for number, line in enumerate(text.split("\n"), 1):
        if "../shared" in line:
            found.append(f"{name}:{number}: mentions ../shared, which a user's clone does not have")
    for number, target in links(text):
        where = f"{name}:{number}: link {target!r}"
        if SCHEME.match(target) or target.startswith("//"):
            continue  # a full URL
        path_part, _, anchor = target.partition("#")
        path_part = path_part.split("?", 1)[0]
        resolved = (document.parent / path_part).resolve() if path_part else document.resolve()
        try:
            resolved.relative_to(root)
        except ValueError:
            found.append(f"{where} leads out of the repository")
            continue
        if not resolved.exists():
            found.append(f"{where}: no such file {os.path.relpath(resolved, root)}")
            continue
        if anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
            found.append(f"{where}: {os.path.relpath(resolved, root)} has no heading #{anchor}")
    return found


@pytest.mark.parametrize("document", documents(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_link_leads_somewhere(document):
    assert document.exists(), f"{document.relative_to(ROOT)} is missing"
    found = problems(document)
    assert not found, "\n".join(found)


def test_the_docs_exist():
    assert len(documents()) > 1, "docs/ holds no Markdown file"


# The checker itself, on a made-up repository, so that a broken link cannot pass unseen.

def make_repo(tmp_path, readme, doc="# Doc\n\n## A heading\n"):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "doc.md").write_text(doc, encoding="utf-8")
    (tmp_path / "README.md").write_text(readme, encoding="utf-8")
    return tmp_path / "README.md"


def test_good_links_pass(tmp_path):
    readme = make_repo(tmp_path, "# R\n\n## Two words, `code`!\n\n[d](docs/doc.md#a-heading) "
                                 "[self](#two-words-code) [web](https://example.com/x#y)\n"
                                 "```\n[in code](nowhere.md)\n```\n`[span](nowhere.md)`\n")
    assert problems(readme, tmp_path) == []


@pytest.mark.parametrize("readme, complaint", [
    ("[gone](docs/gone.md)\n", "no such file docs/gone.md"),
    ("[bad anchor](docs/doc.md#no-such-heading)\n", "has no heading #no-such-heading"),
    ("[own anchor](#nowhere)\n", "has no heading #nowhere"),
    ("![image](docs/missing.png)\n", "no such file docs/missing.png"),
    ("[ref]: docs/missing.md\n", "no such file docs/missing.md"),
    ("[design](../shared/DESIGN.md)\n", "mentions ../shared"),
    ("[outside](../elsewhere.md)\n", "leads out of the repository"),
])
def test_broken_links_fail(tmp_path, readme, complaint):
    found = problems(make_repo(tmp_path, "# R\n\n" + readme), tmp_path)
    assert any(complaint in message for message in found), found


def test_duplicate_headings_are_numbered(tmp_path):
    doc = tmp_path / "d.md"
    doc.write_text("# A\n\n## Same\n\n## Same\n", encoding="utf-8")
    assert anchors(doc) == {"a", "same", "same-1"}
