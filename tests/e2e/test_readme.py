"""test_readme.py - the README's commands work as written, from the repository's top
directory, once its two set-up commands (scripts/demo.sh, scripts/test.sh) have run.

Each fenced block is one test, chosen by its fence's language:

  sh, bash, shell  run as one bash script (errexit, pipefail; then it waits for what it
                   started in the background), as pasted into a terminal at the top
                   directory; every file a command names as TRACYC_OUTPUT=FILE or -o FILE
                   must exist afterwards and not be empty
  c                a complete program (it has a main) is compiled and linked with the
                   library; not run (the README's loops forever)
  lua              run by lua5.4 with the build's module, profiling itself into a file
                   that must then be written
  anything else    no command: CMake fragments, sample output, the layout

Each block runs in a fresh copy of the top directory: symlinks to the repository, with
build/release the build under test (the README names scripts/demo.sh's build, which this
test cannot assume exists) and HOME an empty directory (so that an install into
$HOME/.local stays in the copy). /usr/bin comes first in PATH: python3 is the system's, as
on the Debian the set-up commands prepared. TRACY_PORT is a free port, so no program takes 8086 on a
machine that runs tests in parallel; CARGO_TARGET_DIR keeps cargo's output in the copy. So
blocks stand alone: none may rely on what another left behind.

A block that cannot run here is listed in SKIPPED with why; nothing else is skipped, and a
SKIPPED entry that matches no block fails. Run by ctest (readme_commands) with
TRACYC_BUILD_DIR set.
"""
import os
import re
import signal
import socket
import subprocess

import pytest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.path.abspath(os.environ.get("TRACYC_BUILD_DIR", os.path.join(REPO, "build", "test")))
BLOCK_TIMEOUT = 900  # a hang guard only

# A line of the block -> why the block is not run here.
SKIPPED = {
    "scripts/test.sh": "the set-up commands themselves: this test runs inside scripts/test.sh, after them",
    "TRACY_CLIENT_LIB=tracyc": "needs the tracy-client crate from crates.io: network beyond loopback",
}

# The ports the README's examples listen on: each replaced by a free one, so that tests
# running beside this one never meet them.
README_PORTS = ("9001", "9002")

RUNS = {"sh": "sh", "bash": "sh", "shell": "sh", "c": "c", "lua": "lua"}


def readme_blocks():
    """(language, first line number, text) of each fenced block of the README."""
    blocks = []
    with open(os.path.join(REPO, "README.md")) as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        fence = re.match(r"^(`{3,})\s*([\w+-]*)", lines[i])
        if not fence:
            i += 1
            continue
        start, body = i + 1, []
        i += 1
        while i < len(lines) and not lines[i].startswith(fence.group(1)):
            body.append(lines[i])
            i += 1
        blocks.append((fence.group(2).lower(), start + 1, "\n".join(body) + "\n"))
        i += 1
    return blocks


BLOCKS = [b for b in readme_blocks() if b[0] in RUNS]


def skip_reason(text):
    for marker, why in SKIPPED.items():
        if any(marker in line for line in text.splitlines()):
            return why
    return None


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def top_directory(tmp_path):
    """A copy of the top directory made of symlinks; build/release is the build under test."""
    top = tmp_path / "top"
    top.mkdir()
    for name in os.listdir(REPO):
        if name not in ("build", ".git"):
            os.symlink(os.path.join(REPO, name), top / name)
    (top / "build").mkdir()
    os.symlink(BUILD, top / "build" / "release")
    (tmp_path / "home").mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TRACY_", "TRACYC_", "CARGO_TARGET"))}
    # rustup's cargo finds its toolchain under the real HOME.
    for var, where in (("RUSTUP_HOME", ".rustup"), ("CARGO_HOME", ".cargo")):
        if var not in env and os.path.isdir(os.path.join(os.path.expanduser("~"), where)):
            env[var] = os.path.join(os.path.expanduser("~"), where)
    # python3 is the system's, which scripts/test.sh gave pytest and setuptools (a pyenv or
    # venv python3 earlier in PATH may lack them).
    env.update(HOME=str(tmp_path / "home"), TRACY_PORT=str(free_port()), PATH="/usr/bin:" + env.get("PATH", ""),
               CARGO_TARGET_DIR=str(tmp_path / "cargo-target"), PYTHONDONTWRITEBYTECODE="1")
    return top, env


def run(args, top, env):
    """Runs args at top in a session of its own; on a hang, the whole session goes."""
    proc = subprocess.Popen(args, cwd=top, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=BLOCK_TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        pytest.fail("still running after %d s:\n%s" % (BLOCK_TIMEOUT, out[-4000:]))
    return proc.returncode, out


def outputs_named(text):
    """The files a block's commands write: TRACYC_OUTPUT=FILE and -o FILE."""
    names = re.findall(r"TRACYC_OUTPUT=(\S+)", text) + re.findall(r"(?:^|\s)-o\s+(\S+)", text)
    return sorted({n.strip("'\"") for n in names})


def test_every_skip_names_a_block():
    for marker in SKIPPED:
        assert any(marker in text for _, _, text in BLOCKS), "SKIPPED names no block of the README: " + marker


@pytest.mark.parametrize("language,line,text", BLOCKS, ids=["line %d (%s)" % (b[1], b[0]) for b in BLOCKS])
def test_block(language, line, text, tmp_path):
    why = skip_reason(text)
    if why:
        pytest.skip(why)
    top, env = top_directory(tmp_path)
    kind = RUNS[language]
    if kind == "sh":
        for port in README_PORTS:
            text = re.sub(r"\b%s\b" % port, str(free_port()), text)
        script = "set -eo pipefail\ntrap 'echo \"README: failed: $BASH_COMMAND\" >&2' ERR\n" + text + "wait\n"
        status, out = run(["bash", "-c", script], top, env)
        assert status == 0, "README line %d: exit status %d\n%s" % (line, status, out[-6000:])
        for name in outputs_named(text):
            path = top / name
            assert path.exists() and path.stat().st_size > 0, "README line %d: %s was not written\n%s" % (
                line, name, out[-6000:])
    elif kind == "c":
        if not re.search(r"\bint\s+main\s*\(", text):
            pytest.skip("a fragment, not a complete program")
        (top / "block.c").write_text(text)
        status, out = run(["cc", "-std=c11", "-Wall", "-Werror", "-DTRACY_ENABLE", "-Iinclude", "block.c",
                           "-Lbuild/release", "-ltracyc", "-o", "block"], top, env)
        assert status == 0, "README line %d does not compile:\n%s" % (line, out)
    else:
        (top / "block.lua").write_text(text)
        env.update(LUA_CPATH="build/release/lua/5.4/?.so", TRACYC_OUTPUT="block.txt")
        status, out = run(["lua5.4", "block.lua"], top, env)
        assert status == 0, "README line %d:\n%s" % (line, out)
        assert (top / "block.txt").exists() and (top / "block.txt").stat().st_size > 0, out
