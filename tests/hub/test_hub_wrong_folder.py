"""A path that is not a results folder is a usage error of every command that reads results:
one line naming the path and what a results folder is, exit 2, nothing written. A name is a
Hub dataset id only as ORG/NAME where no such path exists; an offline or unreachable Hub is
one line too."""

import importlib
import os
import socket
import subprocess
import sys

import pytest
from _results_fixture import write_results

from hf_induction.results.protocol import PROTOCOL_FILE

# command -> the arguments after the results folder that make its line otherwise valid.
COMMANDS = {
    "leaderboard": ["--out", "{out}"],
    "space": ["--out", "{out}"],
    "report": ["--out", "{out}"],
    "kappa": [],
    "push": ["org/name"],
    "heads": [],
}


def _wrong(kind: str, tmp_path) -> str:
    """A path of each kind that is not a results folder."""
    if kind == "missing":
        return str(tmp_path / "no-such-folder")
    if kind == "bare name":
        # A mistyped local name: no such path, and not ORG/NAME, so not a Hub id either.
        return "resluts"
    folder = tmp_path / kind.replace(" ", "_")
    folder.mkdir()
    if kind == "unrelated folder":
        (folder / "notes.txt").write_text("not results\n")
    return str(folder)


@pytest.mark.parametrize("kind", ["missing", "empty folder", "unrelated folder", "bare name"])
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_path_that_is_not_a_results_folder_is_one_line(command, kind, tmp_path, capsys,
                                                         monkeypatch):
    if command == "space":
        pytest.importorskip("gradio")
    # Relative names resolve in an empty working folder, where "resluts" surely is not.
    monkeypatch.chdir(tmp_path)
    wrong = _wrong(kind, tmp_path)
    out = tmp_path / "out"
    main = importlib.import_module(f"hf_induction.commands.{command}").main
    with pytest.raises(SystemExit) as info:
        main([wrong, *(a.format(out=out) for a in COMMANDS[command])])
    assert info.value.code == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"hf-induction {command}: error: "), lines
    assert f"{wrong} is not a results folder" in lines[0] and PROTOCOL_FILE in lines[0], lines
    assert not out.exists()


def test_a_results_folder_is_still_read(tmp_path, capsys):
    from hf_induction.commands.kappa import main

    write_results(tmp_path / "r")
    assert main([str(tmp_path / "r")]) == 0
    assert "dense_ssm" in capsys.readouterr().out


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _run(args: list[str], env: dict[str, str], tmp_path) -> subprocess.CompletedProcess:
    # huggingface_hub reads HF_HUB_OFFLINE and HF_ENDPOINT at import: a process of its own.
    inherited = {k: v for k, v in os.environ.items() if k not in ("HF_HUB_OFFLINE", "HF_ENDPOINT")}
    full = {**inherited, "HF_HOME": str(tmp_path / "hf"), "HF_TOKEN": "hf_test",
            "MPLCONFIGDIR": str(tmp_path / "mpl"), **env}
    return subprocess.run([sys.executable, "-m", "hf_induction", *args], cwd=tmp_path,
                          env=full, capture_output=True, text=True, timeout=300)


@pytest.mark.slow
@pytest.mark.parametrize("hub", ["offline", "unreachable"])
def test_a_hub_that_cannot_be_read_is_one_line(hub, tmp_path):
    env = ({"HF_HUB_OFFLINE": "1"} if hub == "offline"
           else {"HF_ENDPOINT": f"http://127.0.0.1:{_closed_port()}"})
    write_results(tmp_path / "r")
    board = _run(["leaderboard", "org/name", "--out", "out"], env, tmp_path)
    push = _run(["push", "r", "org/name", "--max-retries", "0"], env, tmp_path)
    for done, prefix in ((board, "hf-induction leaderboard: error: "), (push, "error: ")):
        lines = done.stderr.strip().splitlines()
        assert done.returncode == 1 and len(lines) == 1, done.stderr
        assert lines[0].startswith(prefix) and "org/name" in lines[0], lines
        assert ("HF_HUB_OFFLINE" if hub == "offline" else "127.0.0.1") in lines[0], lines
    assert not (tmp_path / "out").exists()
