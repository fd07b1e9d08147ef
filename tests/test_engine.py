"""The engine seam (wikigen.core.engine): how a stage picks its engine, and `--engine` / `--ray-address` refused
with the fix when they cannot work (Ray not installed, an address without the ray engine). These run without
Ray; tests/test_ray_engine.py runs the stages on a local Ray cluster."""

import sys
from pathlib import Path

import pytest
from wikigen.search.cluster import check_cluster, installed_version, machine_problems

from wikigen import cli
from wikigen.core.engine import Engine, engine_for, open_engine
from wikigen.core.errors import EngineError, UsageError
from wikigen.core.workers import Workers

ACME = Path(__file__).resolve().parent.parent / "corpora" / "acme"


def _square(x: int, plus: int) -> int:
    return x * x + plus


def test_a_stage_runs_on_the_engine_given_or_on_local_workers_sized_to_its_work():
    assert isinstance(engine_for(None, 0), Workers) and engine_for(None, 0).n == 1  # small work: this process
    assert engine_for(3, 10**9).n in (1, 3)  # 1 where there is no fork
    local = Workers(1, 0)
    assert isinstance(local, Engine) and engine_for(local, 10**9) is local
    assert not isinstance(2, Engine) and not isinstance(None, Engine)
    assert list(local.map(_square, (i for i in range(4)), 1)) == [1, 2, 5, 10]  # lazy items too
    assert local.on_every_node(_square, 3, 0) == {"localhost": 9}


def test_the_local_engine_name_gives_the_worker_count_back():
    with open_engine("local", workers=3) as workers:
        assert workers == 3
    with pytest.raises(UsageError, match="unknown engine 'spark'; choose one of: local, ray"), open_engine("spark"):
        pass
    with pytest.raises(UsageError, match="--ray-address needs --engine ray"), open_engine("local", address="auto"):
        pass


def test_engine_ray_without_ray_installed_names_the_install_command(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError, as where it is not installed
    monkeypatch.delitem(sys.modules, "wikigen.core.ray_engine", raising=False)
    for argv in (
        ["index", str(ACME), "--index", str(tmp_path / "ix"), "--engine", "ray", "--quiet"],
        ["build", str(ACME), "--wiki", str(tmp_path / "wiki"), "--engine", "ray", "--quiet"],
    ):
        assert cli.main(argv) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("Error: --engine ray needs Ray, which is not installed here")
        assert err[0].endswith(": pip install 'wikigen-memory[ray]'")
    assert not (tmp_path / "ix").exists()  # refused before anything was read or written
    assert not (tmp_path / "wiki" / "index.md").exists()


def test_a_ray_address_without_the_ray_engine_is_refused(tmp_path, capsys):
    assert cli.main(["index", str(ACME), "--index", str(tmp_path / "ix"), "--ray-address", "auto"]) == 2
    assert capsys.readouterr().err.strip() == "Error: --ray-address needs --engine ray"


class _TwoMachines:
    """An engine of two machines, one without the corpus folder (on_every_node asks each in turn)."""

    n = 2

    def __init__(self, missing: Path):
        self.missing = missing

    def map(self, fn, items, *args, window=0):
        return (fn(item, *args) for item in items)

    def on_every_node(self, fn, corpus, dense, version):
        return {"10.0.0.1": fn(corpus, dense, version), "10.0.0.2": fn(str(self.missing), dense, version)}


def test_a_machine_without_the_corpus_folder_is_named_before_any_work(tmp_path):
    assert machine_problems(str(ACME), False, installed_version()) == []
    assert machine_problems(str(tmp_path / "nowhere"), False, "0.0.0") == [
        f"no readable corpus folder at {tmp_path / 'nowhere'}",
        f"wikigen-memory {installed_version()}, not 0.0.0 as on the driver",
    ]
    check_cluster(None, ACME, dense=False)  # local workers: nothing to ask
    with pytest.raises(EngineError) as e:
        check_cluster(_TwoMachines(tmp_path / "elsewhere"), ACME, dense=False)
    assert str(e.value) == (
        f"machines of the cluster cannot run this command: 10.0.0.2: no readable corpus folder at "
        f"{tmp_path / 'elsewhere'} (every machine needs the corpus folder at the same path and wikigen-memory "
        "installed as here)"
    )
