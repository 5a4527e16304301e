"""docs/internals.md cannot go stale: its references, quoted excerpts and snippets are checked here.

The tour refers to the code in three ways, and each is checked against the files as they are now:

* a **reference** names a symbol and links to the line that defines it::

      `Module.__setattr__` ([module.py:289](../src/numtorch/nn/modules/module.py#L289))

  The file must exist, the link text and the link target must agree, and the symbol's ``def``,
  ``class`` or assignment must be at that line (or, for a range ``module.py:289-332``, inside it).
  The symbol is a qualified name (``Module.__setattr__``, ``Op.apply``, ``engine.graph_runner``) or
  its last part(s); on failure the message says where the symbol is defined now.
* an **excerpt** is a fenced ``python`` block whose first line names its place, ``# <path>:<a>-<b>``
  (several ranges ``# <path>:10-12, 40-45`` are separated in the block by a ``# ...`` line). Its
  lines must equal those lines of the file, character for character.
* every other ``python`` block is a **snippet** and must run as written (each in a fresh namespace).

Every ``path:line`` written in the prose must be one of these linked references, and every link to
the repository must name an existing file.

Re-numbering after an edit of the code: ``python tests/test_internals_doc.py --fix`` moves each
reference to its symbol's current line (a range moves with its symbol) and each excerpt to the
place where its text now is, then reports what it could not place.
"""
from __future__ import annotations

import ast
import os
import re
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "internals.md"

# `Symbol` ([file.py:12](../path/file.py#L12)) or ([file.py:12-20](../path/file.py#L12-L20))
REF_RE = re.compile(r"`(?P<sym>[A-Za-z_][\w.]*)`\s*\(\[(?P<text>[\w./-]+\.py):(?P<a>\d+)(?:-(?P<b>\d+))?\]"
                    r"\((?P<href>[^)#\s]+)#L(?P<ha>\d+)(?:-L(?P<hb>\d+))?\)\)")
LINK_RE = re.compile(r"\[(?P<text>[^\]]*)\]\((?P<href>[^)\s]+)\)")
PATH_LINE_RE = re.compile(r"[\w./-]+\.py:\d+")
EXCERPT_RE = re.compile(r"^# (?P<path>src/[\w./-]+\.py):(?P<ranges>\d+-\d+(?:, ?\d+-\d+)*)$")
ELISION = "# ..."


@dataclass
class Ref:
    doc_line: int
    sym: str
    path: str      # relative to the repository root
    a: int
    b: int         # == a for a single line
    raw: str       # the matched text

    def where(self):
        return f"docs/internals.md:{self.doc_line}"


@dataclass
class Block:
    doc_line: int  # line of the opening fence
    lines: list    # the block's lines (without fences)

    @property
    def excerpt(self):
        m = EXCERPT_RE.match(self.lines[0]) if self.lines else None
        return m


# ------------------------------------------------------------------------------------------------
# parsing the tour
# ------------------------------------------------------------------------------------------------
def parse(text):
    """(prose lines as (doc_line, text), python blocks): fenced blocks are cut out of the prose."""
    prose, blocks = [], []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            lang = line[3:].strip()
            start = i
            body = []
            i += 1
            while i < len(lines) and not lines[i].startswith("```"):
                body.append(lines[i])
                i += 1
            if lang == "python":
                blocks.append(Block(start + 1, body))
        else:
            prose.append((i + 1, line))
        i += 1
    return prose, blocks


def _repo_path(href):
    """The repository-relative path of a link relative to docs/, or None for an external link."""
    if re.match(r"^[a-z]+:", href) or href.startswith("#"):
        return None
    return os.path.normpath(os.path.join("docs", href.split("#")[0]))


def references(prose):
    """Every symbol reference, plus the problems of links and path:line mentions that are not ones."""
    refs, problems = [], []
    for n, line in prose:
        spans = []
        for m in REF_RE.finditer(line):
            spans.append(m.span())
            path = _repo_path(m["href"])
            a, b = int(m["a"]), int(m["b"] or m["a"])
            ha, hb = int(m["ha"]), int(m["hb"] or m["ha"])
            if (a, b) != (ha, hb) or not path.endswith(m["text"]):
                problems.append(f"docs/internals.md:{n}: link text and target disagree in {m.group(0)}")
            refs.append(Ref(n, m["sym"], path, a, b, m.group(0)))
        rest = line
        for s, e in reversed(spans):
            rest = rest[:s] + rest[e:]
        for m in LINK_RE.finditer(rest):
            path = _repo_path(m["href"])
            if path is None:
                continue
            if "#L" in m["href"] or PATH_LINE_RE.search(m["text"]):
                problems.append(f"docs/internals.md:{n}: line link without a symbol (write `Name` ({m.group(0)})): "
                                f"{m.group(0)}")
            elif not (ROOT / path).exists():
                problems.append(f"docs/internals.md:{n}: link to a missing file: {m.group(0)}")
        rest = LINK_RE.sub("", rest)
        for m in PATH_LINE_RE.finditer(rest):
            problems.append(f"docs/internals.md:{n}: path:line mention that is not a linked reference: {m.group(0)}")
    return refs, problems


# ------------------------------------------------------------------------------------------------
# where symbols are defined
# ------------------------------------------------------------------------------------------------
@lru_cache(maxsize=None)
def definitions(path):
    """``{qualified name: [lines]}`` of the defs, classes and module/class-level assignments in ``path``."""
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    out = {}

    def add(name, line):
        out.setdefault(name, []).append(line)

    def targets(t):
        if isinstance(t, (ast.Tuple, ast.List)):
            for x in t.elts:
                yield from targets(x)
        elif isinstance(t, (ast.Name, ast.Attribute)):
            yield ast.unparse(t)

    def visit(body, prefix, in_function):
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                add(prefix + node.name, node.lineno)
                visit(node.body, prefix + node.name + ".", not isinstance(node, ast.ClassDef))
            elif not in_function and isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                tgts = node.targets if isinstance(node, ast.Assign) else [node.target]
                for t in tgts:
                    for name in targets(t):
                        add(prefix + name, node.lineno)
            elif isinstance(node, (ast.If, ast.Try, ast.With, ast.For, ast.While)):
                for field in ("body", "orelse", "finalbody", "handlers"):
                    for sub in getattr(node, field, []) or []:
                        visit(sub.body if isinstance(sub, ast.ExceptHandler) else [sub], prefix, in_function)

    visit(tree.body, "", False)
    return out


def symbol_lines(path, sym):
    """The lines defining ``sym`` (a qualified name or its trailing part) in ``path``."""
    found = []
    for name, lines in definitions(path).items():
        if name == sym or name.endswith("." + sym):
            found.extend(lines)
    return sorted(found)


def check_reference(ref):
    """None when ``ref`` is right, else a message saying what went stale and where the symbol is now."""
    if not (ROOT / ref.path).is_file():
        return f"{ref.where()}: `{ref.sym}` refers to {ref.path}, which does not exist"
    lines = symbol_lines(ref.path, ref.sym)
    if any(ref.a <= ln <= ref.b for ln in lines):
        return None
    at = f"{ref.path}:{ref.a}" + (f"-{ref.b}" if ref.b != ref.a else "")
    if not lines:
        return f"{ref.where()}: `{ref.sym}` is referenced at {at}, but {ref.path} no longer defines it"
    now = ", ".join(f"{ref.path}:{ln}" for ln in lines)
    return f"{ref.where()}: stale reference: `{ref.sym}` is referenced at {at} but is now defined at {now}"


def excerpt_ranges(block):
    m = block.excerpt
    return m["path"], [tuple(int(x) for x in r.split("-")) for r in re.split(r", ?", m["ranges"])]


def excerpt_chunks(block):
    chunks, cur = [], []
    for line in block.lines[1:]:
        if line == ELISION:
            chunks.append(cur)
            cur = []
        else:
            cur.append(line)
    chunks.append(cur)
    return chunks


def find_chunk(file_lines, chunk):
    """1-based first lines where ``chunk`` occurs verbatim in ``file_lines``."""
    n = len(chunk)
    return [i + 1 for i in range(len(file_lines) - n + 1) if file_lines[i:i + n] == chunk]


def check_excerpt(block):
    path, ranges = excerpt_ranges(block)
    where = f"docs/internals.md:{block.doc_line}"
    if not (ROOT / path).is_file():
        return f"{where}: excerpt of {path}, which does not exist"
    file_lines = (ROOT / path).read_text(encoding="utf-8").split("\n")
    chunks = excerpt_chunks(block)
    if len(chunks) != len(ranges):
        return f"{where}: excerpt header names {len(ranges)} range(s) but the block has {len(chunks)} part(s)"
    for (a, b), chunk in zip(ranges, chunks):
        if b - a + 1 != len(chunk):
            return f"{where}: excerpt range {path}:{a}-{b} has {b - a + 1} lines but the quote has {len(chunk)}"
        actual = file_lines[a - 1:b]
        if actual != chunk:
            k = next(i for i, (x, y) in enumerate(zip(chunk + [None] * len(actual), actual + [None] * len(chunk)))
                     if x != y)
            now = find_chunk(file_lines, chunk)
            hint = (f"; the quoted lines are now at {path}:{now[0]}-{now[0] + len(chunk) - 1}" if now
                    else "; the quoted text is no longer in the file (re-quote it)")
            is_now = actual[k] if k < len(actual) else None
            quoted = chunk[k] if k < len(chunk) else None
            return f"{where}: stale excerpt of {path}:{a}-{b}: line {a + k} is {is_now!r}, the quote has {quoted!r}{hint}"
    return None


# ------------------------------------------------------------------------------------------------
# the tests
# ------------------------------------------------------------------------------------------------
_TEXT = DOC.read_text(encoding="utf-8") if DOC.exists() else ""
_PROSE, _BLOCKS = parse(_TEXT)
_REFS, _LINK_PROBLEMS = references(_PROSE)
_EXCERPTS = [b for b in _BLOCKS if b.excerpt]
_SNIPPETS = [b for b in _BLOCKS if not b.excerpt]


def test_tour_exists_and_is_substantial():
    assert DOC.exists(), "docs/internals.md is missing"
    assert len(_REFS) >= 60, f"only {len(_REFS)} references"
    assert len(_EXCERPTS) >= 20, f"only {len(_EXCERPTS)} excerpts"
    assert len(_SNIPPETS) >= 10, f"only {len(_SNIPPETS)} snippets"


def test_every_section_points_into_the_code():
    # each numbered section (## N. ...) names at least one symbol by reference
    sections, current = {}, None
    for n, line in _PROSE:
        if re.match(r"^## \d+\.", line):
            current = line
            sections[current] = 0
        elif current:
            sections[current] += len(REF_RE.findall(line))
    assert len(sections) >= 15
    empty = [s for s, k in sections.items() if k == 0]
    assert not empty, f"sections without a reference: {empty}"


def test_links_and_path_line_mentions():
    if _LINK_PROBLEMS:
        pytest.fail("\n".join(_LINK_PROBLEMS), pytrace=False)


@pytest.mark.parametrize("ref", _REFS, ids=[f"{r.sym}@{r.path.rsplit('/', 1)[-1]}:{r.a}" for r in _REFS])
def test_reference(ref):
    problem = check_reference(ref)
    if problem:
        pytest.fail(problem + "\n(re-number with: python tests/test_internals_doc.py --fix)", pytrace=False)


@pytest.mark.parametrize("block", _EXCERPTS, ids=[b.lines[0][2:] for b in _EXCERPTS])
def test_excerpt(block):
    problem = check_excerpt(block)
    if problem:
        pytest.fail(problem + "\n(re-number with: python tests/test_internals_doc.py --fix)", pytrace=False)


@pytest.mark.parametrize("block", _SNIPPETS, ids=[f"internals.md:{b.doc_line}" for b in _SNIPPETS])
def test_snippet_runs(block):
    import numtorch
    state = numtorch.get_rng_state()
    try:
        # blank lines first, so a traceback's line numbers are the page's
        exec(compile("\n" * block.doc_line + "\n".join(block.lines), "docs/internals.md", "exec"), {})
    finally:
        numtorch.set_rng_state(state)


def test_checker_reports_stale_reference_and_where_it_moved():
    # the checker itself: a reference one line off names the symbol's current line
    line = symbol_lines("src/numtorch/nn/modules/module.py", "Module.__setattr__")[0]
    ref = Ref(1, "Module.__setattr__", "src/numtorch/nn/modules/module.py", line + 1, line + 1, "")
    msg = check_reference(ref)
    assert msg is not None and f"module.py:{line}" in msg and "stale" in msg
    assert check_reference(Ref(1, "Module.__setattr__", ref.path, line, line, "")) is None
    assert check_reference(Ref(1, "Module.__setattr__", ref.path, line - 2, line + 3, "")) is None
    gone = check_reference(Ref(1, "Module.no_such_method", ref.path, line, line, ""))
    assert "no longer defines" in gone
    # an excerpt one line off is reported with its current place
    blk = Block(1, [f"# src/numtorch/nn/modules/module.py:{line + 1}-{line + 1}",
                    "    def __setattr__(self, name: str, value) -> None:"])
    msg = check_excerpt(blk)
    assert msg is not None and f"module.py:{line}-{line}" in msg
    # a path:line mention that is not a linked reference is flagged
    _, problems = references([(1, "see module.py:12 for details")])
    assert problems


# ------------------------------------------------------------------------------------------------
# script mode: re-number the references and excerpts
# ------------------------------------------------------------------------------------------------
def fix(text):
    """``text`` with references and excerpt headers moved to where their symbols / quoted lines are now;
    also returns the problems it could not fix."""
    problems = []

    def fix_ref(m, n):
        path = _repo_path(m["href"])
        a, b = int(m["a"]), int(m["b"] or m["a"])
        if not (ROOT / path).is_file():
            problems.append(f"docs/internals.md:{n}: {path} does not exist")
            return m.group(0)
        lines = symbol_lines(path, m["sym"])
        if any(a <= ln <= b for ln in lines):
            return m.group(0)
        if not lines:
            problems.append(f"docs/internals.md:{n}: `{m['sym']}` is no longer defined in {path}")
            return m.group(0)
        new = min(lines, key=lambda ln: abs(ln - a))  # of several definitions, the nearest
        na, nb = new, new + (b - a)  # a range moves with its symbol, which starts it
        span = f"{na}" if na == nb else f"{na}-{nb}"
        hspan = f"L{na}" if na == nb else f"L{na}-L{nb}"
        return (f"`{m['sym']}` ([{m['text']}:{span}]({m['href']}#{hspan}))")

    out, lines = [], text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            body = lines[i + 1:j]
            blk = Block(i + 1, body)
            if line[3:].strip() == "python" and blk.excerpt and check_excerpt(blk):
                path, ranges = excerpt_ranges(blk)
                file_lines = (ROOT / path).read_text(encoding="utf-8").split("\n") if (ROOT / path).is_file() else []
                new = []
                for (a, _), chunk in zip(ranges, excerpt_chunks(blk)):
                    at = find_chunk(file_lines, chunk)
                    if not at:
                        problems.append(f"docs/internals.md:{i + 1}: excerpt of {path}:{a} not found; re-quote it")
                        new = None
                        break
                    best = min(at, key=lambda x: abs(x - a))
                    new.append(f"{best}-{best + len(chunk) - 1}")
                if new:
                    body = [f"# {path}:{', '.join(new)}"] + body[1:]
            out.append(line)
            out.extend(body)
            if j < len(lines):
                out.append(lines[j])
            i = j + 1
            continue
        out.append(REF_RE.sub(lambda m: fix_ref(m, i + 1), line))
        i += 1
    return "\n".join(out), problems


if __name__ == "__main__":
    if "--fix" not in sys.argv:
        sys.exit("usage: python tests/test_internals_doc.py --fix   (re-numbers docs/internals.md in place)")
    new, probs = fix(_TEXT)
    if new != _TEXT:
        DOC.write_text(new, encoding="utf-8")
        print("docs/internals.md re-numbered")
    for p in probs:
        print(p)
    sys.exit(1 if probs else 0)
