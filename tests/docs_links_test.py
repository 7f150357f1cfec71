"""The docs name only files, folders, headings and modules that exist.

Checked: README.md, docs/*.md and every tensorflow_ops/*/README.md, so that a
moved or renamed file fails this test instead of leaving the docs behind. The
rule, applied to each document:

1. Links. Every Markdown link or image `[text](target)` outside code, and
   every reference definition `[name]: target`, whose target has no URL scheme
   (`https:`, `mailto:`): the target, relative to the document's folder, must
   exist inside the repository. A `#fragment` must be the GitHub anchor of a
   heading of the target Markdown file (of the document itself, for a bare
   `#fragment`).
2. Paths in backticks. An inline code span is taken for a repository path
   when it contains a `/` or ends in one of SOURCE_EXTENSIONS, and it
   - has no whitespace (else it is a command or an expression);
   - has none of NOT_PATH_CHARACTERS: globs (`*?[]{}`), placeholders (`<>`,
     `...`), variables and assignments (`$`, `=`), Bazel labels and
     `file:line` (`:`), repositories (`@`), calls and strings (`(`, quotes),
     lists (`,`);
   - does not start with `/`, `~`, `-` (absolute paths, flags), and is not an
     extension (`.cu.cc`).
   A span with a `/` is resolved against the repository root, then against the
   document's folder (an op's README names its own `cc/...`); it must exist,
   unless it lies in another tree (NOT_IN_THIS_TREE: TensorFlow's source tree,
   build outputs, files that tools write). A bare file name must be the name of
   a file somewhere in the repository. A `#fragment` is checked as in 1.
3. Paths in fenced code blocks. A word of a code block that contains a `/`
   and ends in one of SOURCE_EXTENSIONS (a script the docs tell you to run),
   by the rule of 2.
4. Modules. `python -m a.b.c` anywhere, where `a` is a folder at the root:
   `a/b/c.py` or `a/b/c/__init__.py` must exist.

Also, every `docs/<page>.md#anchor` that a source file of the repository
names (the code's comments point at the measurements in the docs) must exist.

The repository root is found from Bazel's runfiles (the docs are the test's
data, linked to the source tree) or, run as `python tests/docs_links_test.py`
from the root, from this file's folder.
"""

import os
import re
import unittest
from typing import Dict, Iterator, List, Optional, Set, Tuple

SOURCE_EXTENSIONS = (".py", ".cc", ".h", ".cu", ".bzl", ".md", ".sh", ".txt", ".tpl")
NOT_PATH_CHARACTERS = frozenset("*?[]{}<>$=:@()\"',|")

# Paths the docs name that are not in this repository, each with why.
NOT_IN_THIS_TREE = (
    "tensorflow/",                     # TensorFlow's source tree (vendoring, macros)
    "tensorflow_serving/",             # TensorFlow Serving's source tree
    "xla/",                            # XLA's headers, in the TensorFlow wheel
    "bazel-bin/", "bazel-testlogs/",   # build outputs
    "dist/",                           # where the docs build the wheel
    ".venv/",                          # made by configure.py
    "tensorflow_ops/scale_rows",       # the op tools/new_op.py writes in the examples
    "tensorflow_ops/_build_info.py",   # written into the wheel
)

# Folders never searched for file names or anchors.
_SKIPPED_FOLDERS = {".git", ".venv", "__pycache__", "dist"}

_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.S)
_LINK = re.compile(r"\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_REFERENCE = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*(\S+)", re.M)
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_MODULE = re.compile(r"\bpython[0-9.]*\s+-m\s+([A-Za-z_][\w.]*)")
_DOC_REFERENCE = re.compile(r"\bdocs/[\w/-]+\.md(?:#[\w-]+)?")


def find_repository_root() -> str:
    """The source tree: the folder holding WORKSPACE and README.md.

    Under `bazel test`, the runfiles' README.md (the test's data) is a link
    into the source tree; run directly, this file lies in tests/ of it.
    """
    candidates = []
    if os.environ.get("TEST_SRCDIR"):
        workspace = os.environ.get("TEST_WORKSPACE", "tf_custom_ops")
        runfile = os.path.join(os.environ["TEST_SRCDIR"], workspace, "README.md")
        candidates.append(os.path.dirname(os.path.realpath(runfile)))
    candidates.append(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
    candidates.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    for root in candidates:
        if all(os.path.isfile(os.path.join(root, name)) for name in ("WORKSPACE", "README.md")):
            return root
    raise RuntimeError(f"no repository root among {candidates}")


def doc_files(root: str) -> List[str]:
    """The checked documents, relative to `root`."""
    docs = ["README.md"]
    for folder, pattern in (("docs", "{}"), ("tensorflow_ops", "{}/README.md")):
        if not os.path.isdir(os.path.join(root, folder)):
            continue
        for name in sorted(os.listdir(os.path.join(root, folder))):
            path = os.path.join(folder, pattern.format(name))
            if path.endswith(".md") and os.path.isfile(os.path.join(root, path)):
                docs.append(path)
    return docs


def _walk(root: str) -> Iterator[Tuple[str, List[str]]]:
    """(folder, file names) of the repository, without outputs and caches."""
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in _SKIPPED_FOLDERS and not d.startswith("bazel-")]
        yield folder, files


def file_names(root: str) -> Set[str]:
    """The name of every file of the repository."""
    return {name for _, files in _walk(root) for name in files}


def github_anchor(heading: str) -> str:
    """The anchor GitHub gives a heading (before de-duplication)."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # links keep their text
    text = text.replace("`", "").strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def split_code(text: str) -> Tuple[str, List[Tuple[int, str]]]:
    """The prose of `text`, with fenced blocks blanked (line numbers kept), and
    the lines of its fenced blocks as (line number, line)."""
    prose, code = [], []
    fence: Optional[str] = None
    for number, line in enumerate(text.split("\n"), 1):
        match = _FENCE.match(line)
        if fence is None and match:
            fence = match.group(1)
            prose.append("")
        elif fence is not None:
            if match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence):
                fence = None
            else:
                code.append((number, line))
            prose.append("")
        else:
            prose.append(line)
    return "\n".join(prose), code


def anchors(text: str) -> Set[str]:
    """The anchors of the headings of a Markdown text, duplicates numbered."""
    prose, _ = split_code(text)
    seen: Dict[str, int] = {}
    found = set()
    for line in prose.split("\n"):
        match = _HEADING.match(line)
        if not match:
            continue
        anchor = github_anchor(match.group(1))
        count = seen.get(anchor, 0)
        seen[anchor] = count + 1
        found.add(anchor if count == 0 else f"{anchor}-{count}")
    return found


def looks_like_path(span: str) -> bool:
    """Whether a code span or a code word names a path (rule 2 of the module)."""
    if not span or any(c.isspace() for c in span) or "..." in span or "//" in span:
        return False
    if any(c in NOT_PATH_CHARACTERS for c in span) or span[0] in "/~-":
        return False
    if span.startswith(".") and "/" not in span:  # an extension, such as .cu.cc
        return False
    return "/" in span or span.split("#")[0].endswith(SOURCE_EXTENSIONS)


def _outside_this_tree(path: str) -> bool:
    return any(path == prefix.rstrip("/") or path.startswith(prefix.rstrip("/") + "/")
               for prefix in NOT_IN_THIS_TREE)


class DocChecker:
    """Checks documents against one repository tree."""

    def __init__(self, root: str) -> None:
        self.root = root
        self.names = file_names(root)
        self._anchors: Dict[str, Set[str]] = {}

    def anchors_of(self, path: str) -> Set[str]:
        """The heading anchors of the Markdown file at `path` (absolute)."""
        if path not in self._anchors:
            with open(path, encoding="utf-8") as handle:
                self._anchors[path] = anchors(handle.read())
        return self._anchors[path]

    def _fragment_problem(self, target: str, fragment: str) -> Optional[str]:
        if not fragment or not target.endswith(".md") or not os.path.isfile(target):
            return None
        if fragment not in self.anchors_of(target):
            return f"#{fragment} is no heading of {os.path.relpath(target, self.root)}"
        return None

    def link_problem(self, target: str, doc: str) -> Optional[str]:
        """What is wrong with link `target` of document `doc` (relative), if anything."""
        if _SCHEME.match(target):
            return None
        path, _, fragment = target.partition("#")
        resolved = (os.path.normpath(os.path.join(self.root, os.path.dirname(doc), path))
                    if path else os.path.join(self.root, doc))
        if os.path.relpath(resolved, self.root).startswith(".."):
            return f"link {target} leaves the repository"
        if not os.path.exists(resolved):
            return f"link {target} names nothing"
        return self._fragment_problem(resolved, fragment)

    def path_problem(self, span: str, doc: str) -> Optional[str]:
        """What is wrong with path `span` named in document `doc`, if anything."""
        path, _, fragment = span.partition("#")
        if "/" not in path:
            return None if path in self.names else f"`{span}`: no file of that name"
        if _outside_this_tree(path.rstrip("/")):
            return None
        for base in (self.root, os.path.join(self.root, os.path.dirname(doc))):
            resolved = os.path.normpath(os.path.join(base, path))
            if os.path.exists(resolved):
                return self._fragment_problem(resolved, fragment)
        return f"`{span}` does not exist"

    def module_problem(self, module: str) -> Optional[str]:
        """What is wrong with `python -m module`, for modules of this repository."""
        parts = module.split(".")
        if not os.path.isdir(os.path.join(self.root, parts[0])):
            return None
        base = os.path.join(self.root, *parts)
        if os.path.isfile(base + ".py") or os.path.isfile(os.path.join(base, "__init__.py")):
            return None
        return f"python -m {module}: no such module"

    def problems(self, text: str, doc: str) -> List[str]:
        """Every problem of document `doc` (relative to the root) with text `text`."""
        found: List[Tuple[int, str]] = []
        prose, code = split_code(text)

        def line_of(offset: int) -> int:
            return prose.count("\n", 0, offset) + 1

        for match in _CODE_SPAN.finditer(prose):
            span = match.group(2).strip()
            if looks_like_path(span):
                found.append((line_of(match.start()), self.path_problem(span, doc)))
        # Links outside code spans: blank the spans, keeping offsets.
        plain = _CODE_SPAN.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), prose)
        for pattern in (_LINK, _REFERENCE):
            for match in pattern.finditer(plain):
                found.append((line_of(match.start()), self.link_problem(match.group(1), doc)))
        for number, line in code:
            for word in line.split():
                word = word.strip("\"'`(),;")
                if "/" in word and looks_like_path(word) and word.endswith(SOURCE_EXTENSIONS):
                    found.append((number, self.path_problem(word, doc)))
        for match in _MODULE.finditer(text):
            found.append((text.count("\n", 0, match.start()) + 1,
                          self.module_problem(match.group(1))))
        return [f"{doc}:{number}: {problem}" for number, problem in found if problem]

    def code_reference_problems(self, skipped: str) -> List[str]:
        """Every `docs/<page>.md#anchor` named by a source file (but `skipped`,
        relative to the root) that does not exist."""
        found = []
        for folder, files in _walk(self.root):
            if os.path.relpath(folder, self.root).split(os.sep)[0] == "docs":
                continue
            for name in files:
                path = os.path.join(folder, name)
                if name == "README.md" or os.path.relpath(path, self.root) == skipped:
                    continue
                if not (name.endswith(SOURCE_EXTENSIONS) or name in ("BUILD", "run")):
                    continue
                with open(path, encoding="utf-8", errors="replace") as handle:
                    text = handle.read()
                for match in _DOC_REFERENCE.finditer(text):
                    problem = self.path_problem(match.group(0), "README.md")
                    if problem:
                        where = os.path.relpath(path, self.root)
                        found.append(f"{where}:{text.count(chr(10), 0, match.start()) + 1}: {problem}")
        return found


class DocsLinksTest(unittest.TestCase):
    """The docs of this repository, and the checker itself."""

    @classmethod
    def setUpClass(cls) -> None:
        cls.root = find_repository_root()
        cls.checker = DocChecker(cls.root)

    def test_finds_the_docs(self) -> None:
        docs = doc_files(self.root)
        for expected in ("README.md", "docs/cpu_performance.md",
                         "tensorflow_ops/my_bilinear/README.md"):
            self.assertIn(expected, docs)

    def test_every_doc_names_only_what_exists(self) -> None:
        problems = []
        for doc in doc_files(self.root):
            with open(os.path.join(self.root, doc), encoding="utf-8") as handle:
                problems += self.checker.problems(handle.read(), doc)
        self.assertFalse(problems, "\n" + "\n".join(problems))

    def test_code_points_only_at_existing_docs(self) -> None:
        problems = self.checker.code_reference_problems(
            skipped=os.path.join("tests", os.path.basename(__file__)))
        self.assertFalse(problems, "\n" + "\n".join(problems))

    def test_tuning_rule_anchors_exist(self) -> None:
        found = self.checker.anchors_of(os.path.join(self.root, "docs", "cpu_performance.md"))
        for anchor in ("measurements-behind-the-tuning-rules", "forwardgainsfromavx512",
                       "directpathconvertsfaster", "reusescolumnblends", "convertsspans",
                       "kcolumnblock", "storesforoutput", "kminvaluestosplit"):
            self.assertIn(anchor, found)

    # The checker must be able to fail: fake documents with known faults.

    def test_reports_missing_paths(self) -> None:
        text = ("Edit `tensorflow_ops/my_bilinear/no_such_file.cc` and `no_such_header.h`.\n"
                "```sh\npython3 tools/no_such_tool.py --flag\n```\n")
        problems = self.checker.problems(text, "README.md")
        self.assertEqual(len(problems), 3, problems)
        self.assertIn("README.md:1: `tensorflow_ops/my_bilinear/no_such_file.cc` does not exist",
                      problems)
        self.assertIn("README.md:3: `tools/no_such_tool.py` does not exist", problems)

    def test_reports_broken_links_and_anchors(self) -> None:
        text = ("[a](docs/no_such_page.md) [b](docs/building.md#no-such-heading)\n"
                "[c](#nowhere) [d](../../outside.md)\n")
        problems = self.checker.problems(text, "README.md")
        self.assertEqual(len(problems), 4, problems)

    def test_reports_missing_modules(self) -> None:
        problems = self.checker.problems(
            "`python -m tensorflow_ops.no_such_probe`, python -m pip", "docs/x.md")
        self.assertEqual(problems, ["docs/x.md:1: python -m tensorflow_ops.no_such_probe: "
                                    "no such module"])

    def test_ignores_commands_urls_globs_and_placeholders(self) -> None:
        text = ("`bazel test //...` `https://example.com/a.py` `*_test.py` `.cu.cc`\n"
                "`tensorflow_ops/<op>/BUILD` `tensorflow/tensorflow.bzl` `/usr/local/cuda`\n"
                "`--config=cuda` `//tests:docs_links_test` `tf.load_op_library(\".../x.so\")`\n"
                "[site](https://example.com/page.md) `.../my_bilinear_op.so` `a/b,c/d.py`\n"
                "```sh\nls /tmp/a.py dist/*.whl\n```\n")
        self.assertEqual(self.checker.problems(text, "README.md"), [])

    def test_accepts_existing_paths_links_and_anchors(self) -> None:
        text = ("`tests/docs_links_test.py` `docs_links_test.py` `tests/` "
                "[t](tests/BUILD) [b](docs/building.md#bazel-7) `docs/building.md#cuda`\n")
        self.assertEqual(self.checker.problems(text, "README.md"), [])

    def test_github_anchors(self) -> None:
        self.assertEqual(github_anchor("Cookbook and the small C++ ops"),
                         "cookbook-and-the-small-c-ops")
        self.assertEqual(github_anchor("Why a Lambda over a `lambda` does not reload"),
                         "why-a-lambda-over-a-lambda-does-not-reload")
        self.assertEqual(anchors("# A\n## A\n```\n# not a heading\n```\n"), {"a", "a-1"})


if __name__ == "__main__":
    unittest.main()
