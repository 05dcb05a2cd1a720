"""A match over TLS with a self-signed certificate, and `brandeln serve` as a real process."""

from __future__ import annotations

import datetime
import ipaddress
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import grpc
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from brandeln.arena.embedded import EmbeddedReferee
from brandeln.arena.replay import replay_log
from brandeln.v1 import admin_pb2
from tests.conftest import MINIMAL_BOT, AdminClient, BotProcesses


def self_signed(tmp_path: Path) -> tuple[Path, Path]:
    """A certificate for localhost / 127.0.0.1, and its key, as PEM files."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
            ),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = tmp_path / "cert.pem", tmp_path / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path


async def test_a_match_over_tls(tmp_path: Path, bot_processes: BotProcesses) -> None:
    cert, key = self_signed(tmp_path)
    tls = (cert.read_bytes(), key.read_bytes())
    async with EmbeddedReferee(tmp_path / "ref", host="localhost", tls=tls) as referee:
        admin = AdminClient(referee.address, referee.admin_token, cert.read_bytes())
        try:
            ids = []
            for n in range(4):
                reply = await admin.register(f"tls{n}")
                bot_processes.start(
                    [MINIMAL_BOT, referee.address, reply.token, "first"],
                    env={"BRANDELN_CA": str(cert)},
                )
                ids.append(reply.bot_id)
            await admin.wait_for_sessions(ids)
            _, result = await admin.run_match(
                admin_pb2.RunMatchRequest(bot_ids=ids, deals=4, seed=2)
            )
            assert result.status == "finished"
            log = await admin.stub.GetMatch(
                admin_pb2.GetMatchRequest(match_id=result.match_id), metadata=admin.metadata
            )
            assert replay_log(log.log_jsonl).reproduced
            # A client that does not speak TLS gets nowhere.
            plain = AdminClient(referee.address, referee.admin_token)
            with pytest.raises(grpc.aio.AioRpcError):
                await plain.stub.ListBots(
                    admin_pb2.ListBotsRequest(), metadata=plain.metadata, timeout=2
                )
            await plain.close()
        finally:
            await admin.close()


def _wait_for_line(proc: subprocess.Popen[str], needle: str, timeout: float = 20) -> list[str]:
    assert proc.stderr is not None
    lines: list[str] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        if not line:
            break
        lines.append(line)
        if needle in line:
            return lines
    raise AssertionError(f"{needle!r} not seen in {lines}")


def test_serve_generates_an_admin_token_once_and_stops_cleanly_on_sigterm(
    tmp_path: Path,
) -> None:
    env = {k: v for k, v in os.environ.items() if k != "BRANDELN_ADMIN_TOKEN"}
    env["COLUMNS"] = "200"
    args = [
        sys.executable,
        "-m",
        "brandeln.cli",
        "serve",
        "--port",
        "0",
        "--db",
        str(tmp_path / "r.db"),
        "--logs",
        str(tmp_path / "logs"),
    ]
    first = subprocess.Popen(args, stderr=subprocess.PIPE, text=True, env=env)
    try:
        lines = _wait_for_line(first, "admin token")
        assert any("listening on 127.0.0.1:" in line for line in lines)
        token = lines[-1].rsplit(":", 1)[1].strip()
        assert len(token) >= 32
    finally:
        first.send_signal(signal.SIGTERM)
        assert first.wait(timeout=120) == 0  # generous: the verdict is the exit code
    second = subprocess.Popen(args, stderr=subprocess.PIPE, text=True, env=env)
    try:
        lines = _wait_for_line(second, "match logs in")
        assert not any("admin token" in line for line in lines)  # shown once only
    finally:
        second.send_signal(signal.SIGINT)
        assert second.wait(timeout=120) == 0
