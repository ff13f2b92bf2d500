"""What fetching and parsing a department's harvest costs the harvesting process.

    python benchmarks/bench_harvest_sources.py [--people 1750] [--works 15] [--sources a,b]

Starts the loopback harvest server (tests/support/harvest_server.py) in a child process with
``--people`` generated people and ``--works`` works per person per source, then harvests every
person from every source through one client (pauses off: the server is local), and prints the
people, works, calls and bytes read, the wall time, this process's CPU time (the client's
alone: fetching with httpx and parsing each answer; the server's CPU is the child's), the CPU
per harvested work, and the peak memory. Matching and writing the works is not measured here.
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from directory.services.harvest.sources import (  # noqa: E402
    SOURCES,
    HarvestSettings,
    harvest_person,
    make_client,
)
from tests.support.harvest_data import generated_people  # noqa: E402
from tests.support.harvest_server import SOURCE_PREFIXES  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--people", type=int, default=1750)
    parser.add_argument("--works", type=int, default=15)
    parser.add_argument("--sources", default=",".join(SOURCES))
    args = parser.parse_args()
    names = args.sources.split(",")
    server = subprocess.Popen(
        [sys.executable, "-m", "tests.support.harvest_server", "--people", str(args.people),
         "--works", str(args.works)],
        cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        base = server.stdout.readline().split()[1]
        sources = {name: base + SOURCE_PREFIXES[name] for name in names}
        settings = HarvestSettings(sources=sources, contact="bench@dept.example")
        works = calls = size = errors = 0
        wall, cpu = time.perf_counter(), time.process_time()
        with make_client(settings) as client:
            for person in generated_people(args.people):
                for outcome in harvest_person(person.ids(), settings, client):
                    works += len(outcome.works)
                    calls += outcome.calls
                    size += outcome.bytes_read
                    errors += len(outcome.errors)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    finally:
        server.stdin.close()
        server.wait(10)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"people {args.people}, sources {','.join(names)}, works per source {args.works}")
    print(f"works harvested {works}, calls {calls}, bytes read {size:,}, errors {errors}")
    per_work = cpu / max(works, 1) * 1000
    print(f"wall {wall:.2f} s, client CPU {cpu:.2f} s, CPU per work {per_work:.3f} ms")
    print(f"peak memory {peak:.0f} MiB")


if __name__ == "__main__":
    main()
