"""Repository rule `tf_configure`: exposes the pip-installed TensorFlow to Bazel.

It runs `find_tensorflow.py` with the configured Python and generates
`@local_config_tf` holding:
  //:tf_header_lib              TensorFlow's headers (as -isystem)
  //:libtensorflow_framework    the framework library every op links against
  //:libtensorflow_cc           tf2xla and the XLA builder (XLA kernels only), the
                                C API and session runtime (tf_cc_binary programs)
  //:tf_xla_header_lib          TensorFlow's headers plus the third-party ones
                                that tf2xla's include but the wheel lacks
  //:build_info                 a marker of the TF version, linked into each op library
  //:python_toolchain           a py toolchain for the same interpreter
  //:build_defs.bzl             TF_VERSION, TF_DEFINES, TF_CXX_STANDARD, ...

The interpreter is, in order: $PYTHON_BIN_PATH (written by configure.py into
.tf_configure.bazelrc), <workspace>/.venv/bin/python, python3 on PATH.
"""

load(
    "//third_party/tf:build_flags.bzl",
    "SYSTEM_INCLUDE_ROOTS",
    "XLA_THIRD_PARTY_HEADERS",
    "build_info_source",
)

_PYTHON_ENV = "PYTHON_BIN_PATH"

# Changing TF_CONFIGURE_STAMP (configure.py writes the TF version into it)
# re-runs this rule after TensorFlow is reinstalled.
_STAMP_ENV = "TF_CONFIGURE_STAMP"

def find_python(repository_ctx):
    """The interpreter whose TensorFlow (and jaxlib) the build uses."""
    configured = repository_ctx.os.environ.get(_PYTHON_ENV, "")
    if configured:
        return configured
    workspace_dir = repository_ctx.path(Label("//:WORKSPACE")).dirname
    venv_python = workspace_dir.get_child(".venv").get_child("bin").get_child("python")
    if venv_python.exists:
        return str(venv_python)
    found = repository_ctx.which("python3")
    if not found:
        fail("No Python found. Run `python3 configure.py` first.")
    return str(found)

def _describe_tensorflow(repository_ctx, python):
    script = repository_ctx.path(Label("//third_party/tf:find_tensorflow.py"))
    result = repository_ctx.execute([python, str(script)], quiet = True)
    if result.return_code != 0:
        fail("Could not locate TensorFlow with %s:\n%s%s" % (python, result.stdout, result.stderr))
    return json.decode(result.stdout)

# tf2xla's third-party headers (XLA_THIRD_PARTY_HEADERS, looked for in
# SYSTEM_INCLUDE_ROOTS) are listed in build_flags.bzl, which the pip build reads too.
_XLA_THIRD_PARTY_HEADERS = XLA_THIRD_PARTY_HEADERS
_SYSTEM_INCLUDE_ROOTS = SYSTEM_INCLUDE_ROOTS

def _link_xla_third_party_headers(repository_ctx):
    """Links the headers into xla_third_party/; returns the ones not found."""
    missing = []
    for header in _XLA_THIRD_PARTY_HEADERS:
        found = [root for root in _SYSTEM_INCLUDE_ROOTS
                 if repository_ctx.path(root + "/" + header).exists]
        if found:
            repository_ctx.symlink(found[0] + "/" + header, "xla_third_party/" + header)
        else:
            missing.append(header)
    return missing

def _starlark_list(values):
    return "[%s]" % ", ".join(['"%s"' % v for v in values])

def _tf_configure_impl(repository_ctx):
    # Every label resolved before the first execute(): resolving one after it
    # restarts the rule, which then imports TensorFlow a second time (4 s).
    template = repository_ctx.path(Label("//third_party/tf:BUILD.local_config_tf.tpl"))
    python = find_python(repository_ctx)
    tf = _describe_tensorflow(repository_ctx, python)

    repository_ctx.symlink(tf["include_dir"], "include")
    repository_ctx.symlink(tf["lib_dir"] + "/" + tf["framework_lib"], tf["framework_lib"])

    if tf["cc_lib"]:
        repository_ctx.symlink(tf["lib_dir"] + "/" + tf["cc_lib"], tf["cc_lib"])
    missing = _link_xla_third_party_headers(repository_ctx)
    if missing or not tf["cc_lib"]:
        # Building an XLA kernel then fails with this message; the rest builds.
        if missing:
            reason = ("%s not found in %s: run python3 configure.py, which " +
                      "installs libhighwayhash-dev and libfarmhash-dev") % (
                ", ".join(missing),
                ", ".join(_SYSTEM_INCLUDE_ROOTS),
            )
        else:
            reason = "this TensorFlow has no libtensorflow_cc"
        xla_unavailable = "\n".join([
            "genrule(",
            '    name = "xla_unavailable",',
            '    outs = ["xla_unavailable.h"],',
            '    cmd = "echo \'XLA kernels cannot be built: %s\' >&2; exit 1",' % reason,
            ")",
        ])
        xla_hdrs = '[":xla_unavailable"]'
    else:
        xla_unavailable = ""
        xla_hdrs = 'glob(["xla_third_party/**"])'

    # Without the XLA headers, programs (tf_cc_binary) still link libtensorflow_cc.
    cc_lib_srcs = '["%s"]' % tf["cc_lib"] if tf["cc_lib"] else "[]"

    repository_ctx.template(
        "BUILD",
        template,
        {
            "%{framework_lib}": tf["framework_lib"],
            "%{cc_lib_srcs}": cc_lib_srcs,
            "%{xla_hdrs}": xla_hdrs,
            "%{xla_unavailable}": xla_unavailable,
            "%{python}": python,
        },
    )
    # The same source as the pip build's (build_flags.bzl).
    repository_ctx.file("build_info.cc", build_info_source(tf["version"]))
    repository_ctx.file("build_defs.bzl", "\n".join([
        '"""Facts about the TensorFlow this workspace builds against (generated by tf_configure)."""',
        'TF_VERSION = "%s"' % tf["version"],
        "TF_DEFINES = %s" % _starlark_list(tf["defines"]),
        'TF_CXX_STANDARD = "%s"' % tf["cxx_standard"],
        'TF_CXX11_ABI = "%s"' % tf["cxx11_abi"],
        "TF_IS_CUDA_BUILD = %s" % tf["is_cuda_build"],
        'PYTHON_BIN_PATH = "%s"' % python,
        "",
    ]))

tf_configure = repository_rule(
    implementation = _tf_configure_impl,
    environ = [_PYTHON_ENV, _STAMP_ENV],
    local = True,
)
