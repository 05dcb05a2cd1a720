"""`brandeln bench cluster`: a season on a Ray cluster of 1 and 2 nodes here, against the
same season on one machine without Ray, and the driver's cost per block.

Every Ray process runs inside the network namespaces of the test bed (``brandeln.bench.testbed``):
one host per node, PostgreSQL and the driver on the first. The season's bots use little CPU
(random and heuristic), so on this 2-core machine the figures show the framework's overhead
(Ray's scheduling, an embedded referee per actor, PostgreSQL for every match and log) rather
than a gain from more cores. Each run's record (results, ratings, logs less timing and ids,
``brandeln.bench.season_record``) is compared with the one-machine run's: ``same`` must say yes.

The driver's cost per block is what it does alone, in order, for every block: record it with
its ratings in one PostgreSQL transaction (``brandeln.bench.storage``'s figure, measured on a
throwaway server on loopback, 1k matches recorded before).

Needs root (namespaces) and PostgreSQL's server binaries; prints the reason otherwise.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from brandeln.bench import testbed
from brandeln.bench.season_record import season_record
from brandeln.bench.storage import StorageBenchSettings, run_storage_bench
from brandeln.services import data_folder

__all__ = ["ClusterBenchSettings", "print_cluster_figures", "run_cluster_bench"]

Say = Callable[[str], None]
ROOT = Path(__file__).resolve().parents[2]  # the checkout: brandeln/bench/ is two below it
LIGHT_BOTS = (
    ("random", ("python", "-m", "brandeln.cli", "bot", "run", "random", "--seed", "1")),
    ("heuristic", ("python", "-m", "brandeln.cli", "bot", "run", "heuristic")),
    ("random-2", ("python", "-m", "brandeln.cli", "bot", "run", "random", "--seed", "2")),
    ("heuristic-2", ("python", "-m", "brandeln.cli", "bot", "run", "heuristic")),
)
SEASON_TIMEOUT_S = 1800


@dataclass(frozen=True)
class ClusterBenchSettings:
    blocks: int = 12
    nodes: tuple[int, ...] = (1, 2)
    season: Path | None = None  # a season file instead of the light bots' season

    @classmethod
    def quick(cls) -> ClusterBenchSettings:
        return cls(blocks=4, nodes=(1, 2))


def _light_season(folder: Path, blocks: int) -> tuple[Path, str]:
    name = "bench-cluster"
    text = f'name = "{name}"\nseed = 3\nblocks = {blocks}\ndeals_per_match = 4\nconcurrency = 4\n'
    for bot, command in LIGHT_BOTS:
        text += f"[[bots]]\nname = {json.dumps(bot)}\ncommand = {json.dumps(list(command))}\n"
    path = folder / "season.toml"
    path.write_text(text)
    return path, name


def _season_name(path: Path) -> str:
    import tomllib  # noqa: PLC0415

    name: str = tomllib.loads(path.read_text())["name"]
    return name


def _run(argv: Sequence[str], run: Callable[..., subprocess.Popen[str]]) -> tuple[float, str]:
    started = time.monotonic()
    process = run(list(argv), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    out, err = process.communicate(timeout=SEASON_TIMEOUT_S)
    if process.returncode != 0:
        raise RuntimeError(f"{' '.join(argv[:6])} failed: {err.strip()[-600:]}")
    return time.monotonic() - started, str(out)


def _local_popen(argv: list[str], **kwargs: Any) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, *argv], **kwargs)


def _figures(seconds: float, document: str, blocks: int) -> dict[str, Any]:
    run = json.loads(document)["run"]
    return {
        "wall_s": seconds,
        "season_s": run["seconds"],
        "blocks_per_min": 60 * blocks / run["seconds"],
        "deals_per_s": run["deals"] / run["seconds"],
    }


def run_cluster_bench(settings: ClusterBenchSettings, say: Say) -> dict[str, Any]:
    """Every figure; ``{"skipped": reason}`` where namespaces or PostgreSQL are missing."""
    from tests import pg_server  # noqa: PLC0415 - the throwaway server the tests use

    reason = testbed.namespaces_available()
    bindir = pg_server.find_bindir()
    if reason is None and bindir is None:
        reason = pg_server.INSTALL_HINT
    if reason is not None or bindir is None:
        return {"skipped": reason}
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="brandeln-bench-cluster-") as folder:
        work = Path(folder)
        if settings.season is None:
            season, name = _light_season(work, settings.blocks)
            blocks = settings.blocks
        else:
            season, name = settings.season.resolve(), _season_name(settings.season)
            import tomllib  # noqa: PLC0415

            blocks = int(tomllib.loads(season.read_text())["blocks"])
        say(f"one machine, no Ray: {blocks} blocks")
        local = work / "local"
        seconds, out = _run(
            ["-m", "brandeln.cli", "season", "run", str(season), "--data", str(local), "--json"],
            _local_popen,
        )
        expected = season_record(
            f"sqlite:///{data_folder.ladder_db(local)}",
            str(data_folder.referee_db(data_folder.embedded_dir(local))),
            name,
        )
        rows.append({"where": "one machine", "nodes": 0, **_figures(seconds, out, blocks)})
        for nodes in settings.nodes:
            say(f"Ray cluster of {nodes} node(s) in namespaces: {blocks} blocks")
            with testbed.Sandbox(hosts=nodes) as box:
                first = box.hosts[0]
                with pg_server.postgres_server(bindir, host=first.ip, netns=first.name) as pg:
                    head = testbed.start_head(first, num_cpus=1)
                    for host in box.hosts[1:]:
                        testbed.start_worker(host, head.address, num_cpus=1)
                    data = work / f"cluster-{nodes}"
                    argv = ["-m", "brandeln.cli", "season", "run", str(season), "--data"]
                    argv += [str(data), "--db", pg.url, "--cluster", head.address, "--json"]
                    argv += ["--slots", str(nodes), "--worker-data", str(data / "workers")]
                    seconds, out = _run(argv, first.python)
                    record_argv = ["-m", "brandeln.bench.season_record", pg.url, pg.url, name]
                    _, record = _run(record_argv, first.python)
                    same = json.loads(record) == expected
            rows.append(
                {"where": f"Ray, {nodes} node(s)", "nodes": nodes, "same": same}
                | _figures(seconds, out, blocks)
            )
        say("the driver's cost per block: recording with ratings on PostgreSQL")
        storage = run_storage_bench(StorageBenchSettings(sizes=(1_000,), record=50, reads=3), say)
    recording = [row for row in storage["rows"] if row["backend"] == "postgresql"]
    return {
        "settings": asdict(settings) | {"season": str(settings.season or "light bots")},
        "rows": rows,
        "driver_blocks_per_s": recording[0]["blocks_per_s"] if recording else None,
    }


def print_cluster_figures(figures: dict[str, Any], out: Callable[[str], None]) -> None:
    if "skipped" in figures:
        out(f"cluster bench skipped: {figures['skipped']}")
        return
    out(f"{'where':<18} {'blocks/min':>10} {'deals/s':>8} {'season s':>9} {'wall s':>7}  same")
    for row in figures["rows"]:
        same = "" if "same" not in row else ("yes" if row["same"] else "NO")
        out(
            f"{row['where']:<18} {row['blocks_per_min']:>10.1f} {row['deals_per_s']:>8.1f} "
            f"{row['season_s']:>9.1f} {row['wall_s']:>7.1f}  {same}"
        )
    rate = figures["driver_blocks_per_s"]
    if rate:
        out(
            f"driver: {rate:.0f} blocks/s recorded with ratings on PostgreSQL "
            f"({1000 / rate:.1f} ms per block)"
        )
