"""Dynamic scheduling: every job once, to whichever process is free, across processes and
nodes; a campaign run by two launchers' processes writes the rows one process writes."""

import random
import shutil
import socket
import subprocess
import threading
import time
import warnings

import pytest

from hf_induction.results import CorruptLineWarning
from hf_induction.results.jsonl import read_jsonl
from hf_induction.runner.schedule import my_jobs, static_share, store_queue
from tests.runner.helpers import FAST, NSTAR, env, run_cli

# End to end: several launchers' processes share one campaign.
pytestmark = pytest.mark.slow


class LockedStore:
    """A store whose add is atomic, as TCPStore's is."""

    def __init__(self):
        self.values, self.lock = {}, threading.Lock()

    def add(self, key, amount):
        with self.lock:
            self.values[key] = self.values.get(key, 0) + amount
            return self.values[key]


def test_a_shared_counter_hands_out_every_job_once():
    store, jobs, taken = LockedStore(), list(range(200)), [[] for _ in range(4)]
    # Each worker waits for the others once it holds its first job, so that every one of them
    # takes part however a loaded machine schedules the threads.
    all_started = threading.Barrier(4)

    def worker(k):
        for job in store_queue(jobs, store, "q"):
            taken[k].append(job)
            if len(taken[k]) == 1:
                all_started.wait(timeout=60)
            time.sleep(random.random() * 1e-4)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(j for mine in taken for j in mine) == jobs
    assert all(mine for mine in taken)


def test_the_static_reference_is_a_round_robin_and_a_lone_process_runs_all():
    assert static_share(list(range(7)), 1, 3) == [1, 4]
    assert list(my_jobs(list(range(5)), [str(i) for i in range(5)], 0, 1)) == list(range(5))
    with pytest.raises(ValueError, match="unknown schedule 'fifo'; allowed"):
        list(my_jobs([1], ["a"], 0, 1, "fifo"))


def _worker(rank, world, port, costs, answers):
    import torch.distributed as dist

    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank,
                            world_size=world)
    dist.barrier()
    ran = []
    for i in my_jobs(list(range(len(costs))), [str(i) for i in range(len(costs))], rank, world):
        time.sleep(costs[i])
        ran.append(i)
    answers.put((rank, ran))
    dist.barrier()
    dist.destroy_process_group()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_a_process_busy_with_a_long_job_leaves_the_rest_to_the_others():
    """Through the process group's own store: the process that draws the 3 s job runs at most
    one other, where a round robin would give it a third of the 31 jobs."""
    import torch.multiprocessing as mp

    costs = [3.0] + [0.02] * 30
    ctx = mp.get_context("spawn")
    answers = ctx.Queue()
    port = free_port()
    procs = [ctx.Process(target=_worker, args=(r, 3, port, costs, answers)) for r in range(3)]
    for proc in procs:
        proc.start()
    got = dict(answers.get(timeout=300) for _ in procs)
    for proc in procs:
        proc.join(timeout=60)
    assert sorted(j for ran in got.values() for j in ran) == list(range(31))
    (slow,) = [ran for ran in got.values() if 0 in ran]
    assert len(slow) <= 2, got


def rows(out, table):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CorruptLineWarning)
        return [r for f in sorted((out / table).glob("rank*.jsonl")) for r in read_jsonl(f)]


# Six searches: lengths 2, 3 and the joint cell of the κ family, for two models. Cold: a warm
# start's first size depends on which neighbours have finished, which differs by layout.
CAMPAIGN = ["--dataset", "modadd", "--config", "acot_L3_m3", "--model", "dense_ssm", "lstm",
            "--kappa", "--no-warm-start", *FAST]


@pytest.fixture(scope="module")
def one_process(tmp_path_factory):
    """The campaign run by one process: the rows every other layout must reproduce."""
    out = tmp_path_factory.mktemp("one") / "results"
    done = run_cli([*CAMPAIGN, "--out", str(out)])
    assert done.returncode == 0, done.stderr[-2000:]
    return out


@pytest.fixture
def torchrun():
    path = shutil.which("torchrun")
    if path is None:
        pytest.skip("torchrun is not on PATH")
    return path


def assert_same_rows(out, reference):
    journal = [r["key"] for r in rows(out, "journal")]
    assert len(journal) == len(set(journal)), "a run was trained twice"
    assert set(journal) == {r["key"] for r in rows(reference, "journal")}
    for table, field in (("nstar", "n_star"), ("kappa", "kappa_low")):
        assert ({r["key"]: r[field] for r in rows(out, table)}
                == {r["key"]: r[field] for r in rows(reference, table)}), table


def test_two_nodes_write_the_rows_of_one_process(tmp_path, one_process, torchrun):
    """torchrun --nnodes 2 on localhost, one process per node, the dynamic queue in the
    rendezvous store: the same runs, N* and κ as one process, each run trained once."""
    one = one_process
    two = tmp_path / "two"
    port = free_port()
    nodes = [subprocess.Popen(
        [torchrun, "--nnodes", "2", "--node_rank", str(rank), "--nproc_per_node", "1",
         "--master_addr", "127.0.0.1", "--master_port", str(port), NSTAR, *CAMPAIGN, "--out",
         str(two)], env=env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True) for rank in (0, 1)]
    for node in nodes:
        _, err = node.communicate(timeout=900)
        assert node.returncode == 0, err[-2000:]
    assert all((two / "journal" / f"rank{r}.jsonl").stat().st_size > 0 for r in (0, 1))
    assert_same_rows(two, one)


def test_a_killed_worker_stops_its_launch_and_the_rerun_does_only_the_rest(
        tmp_path, one_process, torchrun):
    """kill -9 of one of torchrun's two workers: torchrun stops the other (SIGTERM, which
    it journals and ends on), and the rerun trains only the runs not yet journaled."""
    out = tmp_path / "killed"
    launch = subprocess.Popen([torchrun, "--standalone", "--nproc_per_node", "2", NSTAR,
                               *CAMPAIGN, "--out", str(out)], env=env(),
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    rank1 = out / "journal" / "rank1.jsonl"
    deadline = time.monotonic() + 600
    while not (rank1.exists() and rank1.read_bytes().count(b"\n") >= 2):
        assert launch.poll() is None and time.monotonic() < deadline, "no run journaled"
        time.sleep(0.05)
    worker = subprocess.run(["pgrep", "-f", "-n", f"nstar.py .*--out {out}"],
                            capture_output=True, text=True).stdout.split()
    subprocess.run(["kill", "-9", *worker])
    assert launch.wait(timeout=300) != 0
    before = len(rows(out, "journal"))
    done = run_cli([*CAMPAIGN, "--out", str(out)])
    assert done.returncode == 0, done.stderr[-2000:]
    assert 0 < before < len(rows(one_process, "journal"))
    assert_same_rows(out, one_process)
