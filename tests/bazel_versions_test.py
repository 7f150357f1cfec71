"""The checked-in build files suit both Bazel 4.2 (here) and Bazel 7 (TensorFlow's).

Bazel 7 removed the Starlark "host" configuration and renamed some flags; it
turns Bzlmod on by default and (from 8) WORKSPACE off. Version-specific flags
therefore live only in the rc file configure.py writes for the Bazel it finds.
"""

import os
import re
import sys
import unittest

# The workspace as it is on disk (the test is tagged "external": never cached).
WORKSPACE = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
sys.path.insert(0, WORKSPACE)

import configure  # pylint: disable=wrong-import-position

# Flags that only one of the two Bazel releases knows.
_VERSION_SPECIFIC_FLAGS = ("experimental_repository_disable_download",
                           "repository_disable_download", "enable_bzlmod",
                           "enable_workspace", "override_repository")
_BUILD_FILE_NAMES = ("BUILD", "BUILD.bazel", "WORKSPACE")
_SKIPPED_DIRS = {".git", ".venv"}


def _starlark_files():
    for folder, dirs, files in os.walk(WORKSPACE):
        dirs[:] = [d for d in dirs if d not in _SKIPPED_DIRS and not d.startswith("bazel-")]
        for name in files:
            if name in _BUILD_FILE_NAMES or name.endswith((".bzl", ".tpl")):
                yield os.path.join(folder, name)


class BazelVersionsTest(unittest.TestCase):

    def test_no_host_configuration(self):
        # Bazel 7 flipped --incompatible_disable_starlark_host_transitions.
        for path in _starlark_files():
            with open(path) as handle:
                self.assertIsNone(re.search(r'cfg\s*=\s*"host"', handle.read()), path)

    def test_checked_in_rc_has_no_version_specific_flag(self):
        with open(os.path.join(WORKSPACE, ".bazelrc")) as bazelrc:
            flags = [line for line in bazelrc if not line.lstrip().startswith("#")]
        for flag in _VERSION_SPECIFIC_FLAGS:
            self.assertFalse([line for line in flags if flag in line], flag)

    def test_workspace_names_no_bazel_4_stand_in(self):
        with open(os.path.join(WORKSPACE, "WORKSPACE")) as workspace:
            text = workspace.read()
        for name in ("rules_java", "rules_cc", "remote_coverage_tools"):
            self.assertNotIn(f'name = "{name}"', text)

    def test_no_bazelversion_file(self):
        # Debian's /usr/bin/bazel refuses to start where one exists.
        self.assertFalse(os.path.exists(os.path.join(WORKSPACE, ".bazelversion")))

    def test_configure_writes_the_flags_each_release_needs(self):
        bazel4 = configure.version_flags((4, 2))
        self.assertIn("build --experimental_repository_disable_download", bazel4)
        self.assertFalse([f for f in bazel4 if f.startswith("common ")])  # Bazel 4 rejects
        self.assertTrue([f for f in bazel4 if "override_repository=rules_java=" in f])
        bazel7 = configure.version_flags((7, 4))
        self.assertEqual(sorted(bazel7), sorted([
            "common --noenable_bzlmod", "common --enable_workspace",
            "build --repository_disable_download"]))
        self.assertNotIn("common --enable_workspace", configure.version_flags((7, 0)))


if __name__ == "__main__":
    unittest.main()
