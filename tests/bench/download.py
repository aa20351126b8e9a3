"""Download benchmark: Reverie's downloader against curl, over loopback.

    python -m tests.bench.download [--rounds 5] [--size-mb 200] [--smollm2] [--json out.json]

The same file (random bytes behind a GGUF header, or the embedded SmolLM2
GGUF with ``--smollm2``) is served by the test suite's local Hub and fetched
from the same CDN URL by ``Downloader.download`` and by ``curl -s -o``.  The
Hub runs in a process of its own, as curl does: in the downloader's process
its threads would compete with the downloader for the GIL.
The downloader's time includes everything a user waits for: its sha256
(computed while downloading), the GGUF check, the fsync and the move into
place; curl only writes the file.  Target: downloader/curl >= 0.9.  A third
side, curl followed by ``sha256sum``, does the same work as the downloader
(fetch, then check), for a like-for-like figure.

Rounds alternate between the sides so that machine noise hits both alike;
the first round warms up; each figure is the median over rounds.  Not a
test: it asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from models.download import Downloader, DownloadRequest, DownloadState
from models.embedded import default_chat_model_path
from tests.hub_server import HubServer, sha256_hex

MB = 1_000_000


def random_gguf(size: int) -> bytes:
    header = b"GGUF" + struct.pack("<IQQ", 3, 0, 0)
    return header + random.Random(0).randbytes(size - len(header))


def cpu_seconds() -> float:
    """CPU time of this process (all its threads) and of its finished children."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def timed(run: Callable[[], Path], expected: bytes) -> tuple[float, float]:
    """Wall and CPU seconds *run* took; the file it wrote must be *expected*, and is
    deleted after.  CPU time says more than wall time on a machine shared with others."""
    start, cpu_start = time.perf_counter(), cpu_seconds()
    path = run()
    seconds, cpu = time.perf_counter() - start, cpu_seconds() - cpu_start
    if path.stat().st_size != len(expected):
        raise SystemExit(f"{path} has {path.stat().st_size} bytes, expected {len(expected)}")
    path.unlink()
    return seconds, cpu


def serve(source: Path) -> None:
    """Serve *source* on a local Hub; print its CDN URL, stop when stdin closes."""
    content = source.read_bytes()
    with HubServer() as hub:
        hub.add("bench/model", "model.gguf", content)
        print(hub.cdn_url(content), flush=True)
        sys.stdin.read()


@contextmanager
def hub_process(content: bytes, folder: Path) -> Iterator[str]:
    """A local Hub serving *content* from another process; yields the file's CDN URL."""
    source = folder / "served.gguf"
    source.write_bytes(content)
    server = subprocess.Popen(
        [sys.executable, "-m", "tests.bench.download", "--serve", str(source)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        yield server.stdout.readline().strip()
    finally:
        server.communicate(timeout=30)  # closes its stdin: it stops


def bench(content: bytes, rounds: int, folder: Path) -> dict[str, Any]:
    curl = shutil.which("curl")
    if curl is None:
        raise SystemExit("curl is not installed")
    with hub_process(content, folder) as url:
        downloader = Downloader()
        digest = sha256_hex(content)

        def ours() -> Path:
            request = DownloadRequest(url, folder / "ours.gguf", len(content), digest)
            return downloader.download(request, DownloadState())

        def theirs() -> Path:
            out = folder / "curl.gguf"
            subprocess.run([curl, "-s", "-o", str(out), url], check=True)
            return out

        def theirs_checked() -> Path:
            """curl, then the check a careful user makes: the same sha256."""
            out = theirs()
            subprocess.run(["sha256sum", str(out)], check=True, capture_output=True)
            return out

        sides = [("downloader", ours), ("curl", theirs), ("curl+sha256sum", theirs_checked)]
        seconds: dict[str, list[float]] = {name: [] for name, _ in sides}
        cpu: dict[str, list[float]] = {name: [] for name, _ in sides}
        try:
            for round_number in range(rounds + 1):
                shift = round_number % len(sides)  # each round starts with another side
                for name, run in sides[shift:] + sides[:shift]:
                    took, used = timed(run, content)
                    if round_number:
                        seconds[name].append(took)
                        cpu[name].append(used)
        finally:
            downloader.close()
    wall = {name: statistics.median(values) for name, values in seconds.items()}
    return {
        "bytes": len(content),
        "rounds": rounds,
        "seconds": seconds,
        "cpu_seconds": cpu,
        "downloader_mb_per_s": len(content) / wall["downloader"] / MB,
        "curl_mb_per_s": len(content) / wall["curl"] / MB,
        "downloader_over_curl": wall["curl"] / wall["downloader"],
        "downloader_over_checked_curl": wall["curl+sha256sum"] / wall["downloader"],
        "downloader_cpu_s": statistics.median(cpu["downloader"]),
        "curl_cpu_s": statistics.median(cpu["curl"]),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--size-mb", type=int, default=200, help="size of the random file")
    parser.add_argument("--smollm2", action="store_true", help="serve the SmolLM2 GGUF instead")
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument("--serve", type=Path, help=argparse.SUPPRESS)  # the Hub's own process
    args = parser.parse_args(argv)
    if args.serve:
        serve(args.serve)
        return 0
    if args.smollm2:
        source = default_chat_model_path()
        content, label = source.read_bytes(), source.name
    else:
        content, label = random_gguf(args.size_mb * MB), f"{args.size_mb} MB of random bytes"
    with tempfile.TemporaryDirectory(prefix="reverie-bench-") as folder:
        results = bench(content, args.rounds, Path(folder))
    results["file"] = label
    results["cpus"] = os.cpu_count()
    print(f"{label} over loopback, median of {args.rounds} rounds:")
    print(
        f"  downloader {results['downloader_mb_per_s']:.0f} MB/s (sha256, checks, fsync, move), "
        f"curl {results['curl_mb_per_s']:.0f} MB/s"
    )
    print(f"  downloader/curl = {results['downloader_over_curl']:.3f} (target >= 0.9)")
    print(
        f"  downloader/(curl then sha256sum) = {results['downloader_over_checked_curl']:.3f}"
        " (the same work done: fetched and checked)"
    )
    print(
        f"  CPU seconds per download: downloader {results['downloader_cpu_s']:.3f}, "
        f"curl {results['curl_cpu_s']:.3f}; load average {os.getloadavg()[0]:.1f} "
        f"on {results['cpus']} cores (wall times are only fair on an idle machine)"
    )
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
