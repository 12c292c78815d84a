"""Where the profile goes, and that it is whole: the output path is resolved when the
program starts; the file is written under a temporary name and renamed when complete, so a
program that dies (os._exit) leaves no empty file; SIGTERM writes what there is and says
so; a program that closed its stdout or whose reader went away gets no summary and no
error from tracer."""
import json
import os
import signal
import subprocess

from conftest import PYTHON, Trace, child_env


def test_relative_output_is_where_the_program_started(tracer_run, write, tmp_path):
    write("sub/.keep", "")
    script = write("moves.py", """\
        import os
        def work():
            return 1
        os.chdir("sub")
        work()
        """)
    run = tracer_run("--no-c-calls", script, output=None, env={})
    assert run.returncode == 0
    run = subprocess.run([PYTHON, "-m", "tracer", "-o", "rel.csv", script], cwd=tmp_path, env=child_env(),
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert not (tmp_path / "sub" / "rel.csv").exists()
    with open(tmp_path / "rel.csv") as f:
        assert "work," in f.read()


def test_relative_tracyc_output_is_where_the_program_started(write, tmp_path):
    write("sub/.keep", "")
    script = write("moves.py", """\
        import os
        import tracer
        os.chdir("sub")
        with tracer.zone("after chdir"):
            pass
        """)
    run = subprocess.run([PYTHON, script], cwd=tmp_path, env=child_env(TRACYC_OUTPUT="rel.json"),
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert not (tmp_path / "sub" / "rel.json").exists()
    assert Trace(tmp_path / "rel.json").named("after chdir")


def test_os_exit_leaves_no_empty_file_and_an_old_one_intact(tracer_run, write, tmp_path):
    script = write("quits.py", "import os\ndef work():\n    pass\nwork()\nos._exit(3)\n")
    run = tracer_run(script, output="new.json")
    assert run.returncode == 3
    (tmp_path / "old.json").write_text("the previous profile")
    run = tracer_run(script, output="old.json")
    assert run.returncode == 3
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old.json", "quits.py"]  # no temporary left either
    assert (tmp_path / "old.json").read_text() == "the previous profile"


def test_complete_output_replaces_an_old_file_whole(tracer_run, write, tmp_path):
    (tmp_path / "trace.json").write_text("x" * 100000)
    run = tracer_run(write("ok.py", "def work():\n    pass\nwork()\n"))
    assert run.returncode == 0, run.stderr
    assert run.trace.named("work")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ok.py", "trace.json"]


def test_sigterm_writes_what_there_is_and_says_it_was_cut_short(write, tmp_path):
    script = write("serve.py", """\
        import time
        def work():
            time.sleep(0.001)
        for i in range(1000000):
            work()
            if i == 2:
                print("ready", flush=True)
        """)
    for output in ("trace.json", "summary.txt"):
        proc = subprocess.Popen([PYTHON, "-m", "tracer", "-o", output, script], cwd=tmp_path, env=child_env(),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert proc.stdout.readline() == "ready\n"
        proc.send_signal(signal.SIGTERM)
        _, stderr = proc.communicate(timeout=60)
        assert proc.returncode == -signal.SIGTERM, stderr  # it dies of SIGTERM, as without tracer
        assert stderr == ""
    trace = Trace(tmp_path / "trace.json")
    trace.assert_nested()
    assert len(trace.named("work")) >= 3
    assert [m["name"] for m in trace.messages] == ["tracer: the program was stopped by SIGTERM; the profile ends here"]
    assert "warning tracer: the program was stopped by SIGTERM" in (tmp_path / "summary.txt").read_text()


def test_sigterm_handled_by_the_program_is_left_to_it(write, tmp_path):
    script = write("handles.py", """\
        import signal, sys
        signal.signal(signal.SIGTERM, lambda *a: sys.exit(7))
        print("ready", flush=True)
        signal.pause()
        """)
    proc = subprocess.Popen([PYTHON, "-m", "tracer", "-o", "trace.json", script], cwd=tmp_path, env=child_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout.readline() == "ready\n"
    proc.send_signal(signal.SIGTERM)
    proc.communicate(timeout=60)
    assert proc.returncode == 7
    with open(tmp_path / "trace.json") as f:
        assert not any("SIGTERM" in e.get("name", "") for e in json.load(f)["traceEvents"])


def test_closed_stdout_gets_no_summary_and_no_error(write, tmp_path):
    script = write("closes.py", "import sys\ndef work():\n    pass\nwork()\nsys.stdout.close()\n")
    for args in ([script], ["-m", "tracer", script]):
        run = subprocess.run([PYTHON, *args], cwd=tmp_path, env=child_env(), capture_output=True, text=True,
                             timeout=120)
        assert run.returncode == 0 and run.stdout == "" and run.stderr == "", run.stderr


def test_broken_pipe_gets_no_error_from_tracer(write, tmp_path):
    script = write("quiet.py", "def work():\n    pass\nwork()\n")
    proc = subprocess.Popen([PYTHON, "-m", "tracer", script], cwd=tmp_path, env=child_env(), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    proc.stdout.close()  # the reader is gone before the summary is written (`... | head -0`)
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 0 and stderr == ""
