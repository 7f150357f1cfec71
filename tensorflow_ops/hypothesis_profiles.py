"""Hypothesis settings shared by the property tests of every op.

`bazel test` runs the "ci" profile: few examples, derandomized (a fixed seed per
test), no example database, so a run is fast and the same every time. Set
TENSORFLOW_OPS_HYPOTHESIS_PROFILE=soak for many more random examples, e.g.

    TENSORFLOW_OPS_HYPOTHESIS_PROFILE=soak bazel test --test_timeout=3600 \
        --test_env=TENSORFLOW_OPS_HYPOTHESIS_PROFILE <the op's property test>
"""

import os

from hypothesis import HealthCheck
from hypothesis import settings

PROFILE_ENV = "TENSORFLOW_OPS_HYPOTHESIS_PROFILE"

# The first call of an op traces and loads kernels, so no per-example deadline;
# image strategies draw a few numbers and a seed, never whole arrays.
_COMMON = dict(database=None, deadline=None, print_blob=True,
               suppress_health_check=[HealthCheck.too_slow])

settings.register_profile("ci", max_examples=40, derandomize=True, **_COMMON)
settings.register_profile("soak", max_examples=20000, derandomize=False, **_COMMON)


def load_profile() -> str:
    """Activates the profile named by $TENSORFLOW_OPS_HYPOTHESIS_PROFILE ("ci" if
    unset) and returns its name."""
    name = os.environ.get(PROFILE_ENV, "ci")
    settings.load_profile(name)
    return name
