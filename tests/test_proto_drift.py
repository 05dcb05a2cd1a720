"""The committed stubs in sdk/python/brandeln/v1/ must be exactly what scripts/gen_proto.py makes
from proto/."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SDK_ROOT = ROOT / "sdk" / "python"


def _load_generator() -> object:
    spec = importlib.util.spec_from_file_location("gen_proto", ROOT / "scripts" / "gen_proto.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["gen_proto"] = module
    spec.loader.exec_module(module)
    return module


def test_generated_stubs_match_the_proto_files(tmp_path: Path) -> None:
    gen = _load_generator()
    fresh = gen.generate(tmp_path)  # type: ignore[attr-defined]
    fresh_rel = {p.relative_to(tmp_path): p.read_bytes() for p in fresh}
    committed = {
        p.relative_to(SDK_ROOT): p.read_bytes()
        for p in (SDK_ROOT / "brandeln" / "v1").rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }
    missing = sorted(str(p) for p in fresh_rel.keys() - committed.keys())
    extra = sorted(str(p) for p in committed.keys() - fresh_rel.keys())
    changed = sorted(
        str(p) for p in fresh_rel.keys() & committed.keys() if fresh_rel[p] != committed[p]
    )
    hint = "sdk/python/brandeln/v1/ has drifted from proto/; run `make proto` and commit the result"
    assert not missing, f"{hint}: missing {missing}"
    assert not extra, f"{hint}: not generated {extra}"
    assert not changed, f"{hint}: changed {changed}"
