"""Runs Google's avatar LE test classes against a Pandora device under test: Strobe's
strobe-pandora, or Bumble's own Pandora server (the reference avatar is written against).

Each shard gets its own RootCanal, its own device under test and its own avatar run, so
shards run in parallel (the cases wait on the air, not on the CPU). Cases listed in
unsupported.txt are not run. Prints per-class counts, then "N passed, M failed" last.
"""

import argparse
import os
import re
import signal
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
# No shard may run longer than this (a whole run takes about 3 minutes).
SHARD_DEADLINE = 900
VENV_BIN = Path(sys.executable).parent


# Every process a shard started, so that an interrupted run ends them all (they run in sessions
# of their own, out of reach of the signal that interrupted this one).
STARTED = []


def end_everything(signum, _frame):
    for process in STARTED:
        signal_group(process, signal.SIGKILL)
    sys.exit(128 + signum)


def signal_group(process, sig):
    try:
        os.killpg(process.pid, sig)
    except ProcessLookupError:
        pass


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port, process, deadline):
    while time.monotonic() < deadline:
        if process.poll() is not None:
            return False
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return True
        time.sleep(0.1)
    return False


def list_cases(classes):
    out = subprocess.run([VENV_BIN / "avatar", "-l", "-t", *classes], capture_output=True, text=True, check=True).stdout
    return [line.strip() for line in out.splitlines() if re.match(r"^\w+\.test_", line.strip())]


def load_unsupported():
    cases = {}
    for line in (HERE / "unsupported.txt").read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        name, _, reason = line.partition("  # ")
        cases[name.strip()] = reason.strip()
    return cases


class Shard:
    """One RootCanal, one device under test and one avatar run over `cases`."""

    def __init__(self, index, dut, cases, workdir, strobe_pandora):
        self.index, self.dut, self.cases = index, dut, cases
        self.dir = workdir / f"{dut}-{index}"
        self.dir.mkdir(parents=True)
        self.strobe_pandora = strobe_pandora
        self.results = {}
        self.processes = []

    def start(self, command, log, **kwargs):
        # A process group of its own: `python -m rootcanal` runs the controller as its child, and
        # the whole group ends with the shard.
        process = subprocess.Popen(command, stdout=open(self.dir / f"{log}.out", "w"),
                                   stderr=open(self.dir / f"{log}.err", "w"), start_new_session=True, **kwargs)
        self.processes.append(process)
        STARTED.append(process)
        return process

    def run(self):
        try:
            self.results = self.run_cases()
        except Exception as error:  # a shard that could not start fails every case it had
            (self.dir / "shard.err").write_text(f"{error}\n")
            self.results = {case: "ERROR" for case in self.cases}
        finally:
            for process in reversed(self.processes):
                signal_group(process, signal.SIGTERM)
            for process in self.processes:
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    signal_group(process, signal.SIGKILL)
                    process.wait()

    def run_cases(self):
        # A port found free may be taken (an outgoing connection's local port) before the
        # process binds it: each start is checked by what the process says it listens on, and
        # tried again on other ports.
        for attempt in range(3):
            hci = self.start_rootcanal(attempt)
            if hci:
                break
        else:
            raise RuntimeError("RootCanal did not start")
        for attempt in range(3):
            grpc = self.start_dut(hci, attempt)
            if grpc:
                break
        else:
            raise RuntimeError(f"the device under test ({self.dut}) did not serve")
        logs = self.dir / "logs"
        config = {
            "TestBeds": [{
                "Name": f"{self.dut}{self.index}",
                "Controllers": {
                    "PandoraDevice": [{"grpc_target": f"127.0.0.1:{grpc}", "name": self.dut}],
                    "BumbleDevice": [{"transport": f"tcp-client:127.0.0.1:{hci}"}],
                },
                "TestParams": {"order_PandoraDevice": 0, "order_BumbleDevice": 1},
            }],
            "MoblyParams": {"LogPath": str(logs)},
        }
        (self.dir / "config.yml").write_text(yaml.safe_dump(config))
        avatar = self.start([VENV_BIN / "avatar", "-c", self.dir / "config.yml", "-o", self.dir / "btsnoop",
                             "-t", *self.cases], "avatar", cwd=self.dir)
        try:
            # A case that hangs (a call without a deadline that never returns) ends the shard:
            # its cases without a record count as errors.
            avatar.wait(timeout=SHARD_DEADLINE)
        except subprocess.TimeoutExpired:
            (self.dir / "shard.err").write_text(f"avatar did not finish within {SHARD_DEADLINE} s\n")
        return self.read_results(logs)

    def start_rootcanal(self, attempt):
        """RootCanal on free ports; its HCI port once it says it listens there, else None."""
        hci, test, link, link_ble = (free_port() for _ in range(4))
        log = f"rootcanal-{attempt}"
        process = self.start([sys.executable, "-m", "rootcanal", f"-hci_port={hci}", f"-test_port={test}",
                              f"-link_port={link}", f"-link_ble_port={link_ble}"], log)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and process.poll() is None:
            if f"Listening on: {hci} " in (self.dir / f"{log}.out").read_text(errors="replace"):
                return hci
            time.sleep(0.1)
        signal_group(process, signal.SIGKILL)
        return None

    def start_dut(self, hci, attempt):
        """The device under test on RootCanal; its gRPC port once it serves, else None."""
        log = f"dut-{attempt}"
        if self.dut == "strobe":
            # Any free port, the one bound read from its READY line.
            process = self.start([self.strobe_pandora, "--transport", f"tcp:127.0.0.1:{hci}", "--port", "0",
                                  "--verbose"], log)
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and process.poll() is None:
                ready = re.search(r"^READY grpc=127\.0\.0\.1:(\d+)$", (self.dir / f"{log}.out").read_text(), re.M)
                if ready:
                    return int(ready.group(1))
                time.sleep(0.1)
        else:
            grpc = free_port()
            process = self.start([VENV_BIN / "bumble-pandora-server", "--transport", f"tcp-client:127.0.0.1:{hci}",
                                  "--grpc-port", str(grpc)], log)
            # Bumble prints nothing when it serves: the port answering, with the process alive a
            # moment later (a port taken by another process would not keep it alive).
            if wait_for_port(grpc, process, time.monotonic() + 60):
                time.sleep(1)
                if process.poll() is None:
                    return grpc
        signal_group(process, signal.SIGKILL)
        return None

    def read_results(self, logs):
        results = {case: "ERROR" for case in self.cases}  # a case with no record did not finish
        for summary in logs.glob("*/*/test_summary.yaml"):
            for record in yaml.safe_load_all(summary.read_text()):
                if record and record.get("Type") == "Record" and record.get("Test Class"):
                    results[f"{record['Test Class']}.{record['Test Name']}"] = record["Result"]
        return results


def run(dut, cases, shards, workdir, strobe_pandora):
    parts = [Shard(i, dut, cases[i::shards], workdir, strobe_pandora) for i in range(min(shards, len(cases)))]
    threads = [threading.Thread(target=shard.run) for shard in parts]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    results = {}
    for shard in parts:
        results.update(shard.results)
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shards", type=int, default=6)
    parser.add_argument("--dut", choices=["strobe", "bumble", "both"], default="strobe")
    parser.add_argument("--strobe-pandora", required=True)
    parser.add_argument("--keep", help="keep every shard's logs in this directory")
    parser.add_argument("classes", nargs="*", default=["LeHostTest", "LeSecurityTest"],
                        help="classes, or case names as avatar lists them (a prefix selects every case it starts)")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, end_everything)
    signal.signal(signal.SIGINT, end_everything)
    unsupported = load_unsupported()
    listed = list_cases(args.classes)
    if not listed:
        print(f"avatar lists no case for {' '.join(args.classes)}", file=sys.stderr)
        return 2
    cases = [case for case in listed if case not in unsupported]
    skipped = [case for case in listed if case in unsupported]
    workdir = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="strobe-conformance-"))
    if args.keep and workdir.exists():
        shutil.rmtree(workdir)
    workdir.mkdir(parents=True, exist_ok=True)

    duts = ["strobe", "bumble"] if args.dut == "both" else [args.dut]
    outcome = {}
    for dut in duts:
        start = time.monotonic()
        outcome[dut] = (run(dut, cases, args.shards, workdir, args.strobe_pandora), time.monotonic() - start)

    classes = sorted({case.split(".")[0] for case in listed})
    print(f"\n{'class':<16}" + "".join(f"{dut + ' passed':>16}" for dut in duts) + f"{'not run':>10}{'cases':>8}")
    for cls in classes:
        row = f"{cls:<16}"
        for dut in duts:
            results = outcome[dut][0]
            row += f"{sum(1 for c, r in results.items() if c.startswith(cls + '.') and r == 'PASS'):>16}"
        row += f"{sum(1 for c in skipped if c.startswith(cls + '.')):>10}{sum(1 for c in listed if c.startswith(cls + '.')):>8}"
        print(row)
    for dut in duts:
        results, seconds = outcome[dut]
        failed = sorted(c for c, r in results.items() if r not in ("PASS", "SKIP"))
        avatar_skipped = sum(1 for r in results.values() if r == "SKIP")
        print(f"\n{dut}: {len(results) - len(failed) - avatar_skipped} of {len(results) - avatar_skipped} passed in {seconds:.0f} s "
              f"({avatar_skipped} skipped by avatar itself, {len(skipped)} listed in unsupported.txt not run)")
        for case in failed:
            print(f"  {results[case]:<6} {case}")
    # The device under test the suite is about is the first one.
    results = outcome[duts[0]][0]
    passed = sum(1 for r in results.values() if r == "PASS")
    failed = sum(1 for r in results.values() if r not in ("PASS", "SKIP"))
    # A failure's logs (avatar's, RootCanal's, the device's) are what explain it: keep them.
    if failed and not args.keep:
        print(f"\nlogs of every shard kept in {workdir}")
    elif not args.keep:
        shutil.rmtree(workdir, ignore_errors=True)
    print(f"\n{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
