#!/usr/bin/env python3
"""Assembles the atomq wheel from a build (no package index, no build backend: these machines
reach none): the Python package (build/python/atomq: __init__.py, __main__.py, the pybind11
module), the host-only command line (build/bin/atomq, as atomq/bin/atomq), a CUDA build's
libatomq_profile.so (atomq/lib, for atomq.profile()) and its data
(build/share/atomq, as atomq/share/atomq), with the metadata of python/pyproject.toml.

    make_wheel.py BUILD_DIR OUT_DIR      -> OUT_DIR/atomq-VERSION-TAG.whl (its path printed)"""
import base64
import hashlib
import pathlib
import re
import sys
import tomllib
import zipfile

HERE = pathlib.Path(__file__).resolve().parent


def fail(message):
    sys.exit(f"make_wheel.py: {message}")


def wheel_tag(module):
    """cp311-cp311-linux_x86_64 from _atomq.cpython-311-x86_64-linux-gnu.so."""
    m = re.match(r"_atomq\.cpython-(\d+)-(\w+?)-linux-gnu\.so$", module.name)
    if not m:
        fail(f"cannot tell the Python version and platform from {module.name}")
    return f"cp{m.group(1)}-cp{m.group(1)}-linux_{m.group(2)}"


def package_files(build):
    """(path in the wheel, file on disk) for everything the package holds."""
    package = build / "python" / "atomq"
    modules = sorted(package.glob("_atomq.cpython-*.so"))
    if len(modules) != 1:
        fail(f"expected one built module in {package}, found {len(modules)} (build the atomq_python target)")
    files = [(f"atomq/{p.name}", p) for p in sorted(package.iterdir()) if p.is_file() and p.suffix in (".py", ".so")]
    cli = build / "bin" / "atomq"
    if not cli.is_file():
        fail(f"no {cli} (build the atomq target)")
    files.append(("atomq/bin/atomq", cli))
    profile_library = build / "lib" / "libatomq_profile.so"  # a CUDA build's: atomq.profile()
    if profile_library.is_file():
        files.append(("atomq/lib/libatomq_profile.so", profile_library))
    data = build / "share" / "atomq"
    if not (data / "tables").is_dir():
        fail(f"no data folder {data} (build the atomq_data target)")
    files += [(f"atomq/share/atomq/{p.relative_to(data)}", p) for p in sorted(data.rglob("*")) if p.is_file()]
    return files, modules[0]


def record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def main():
    if len(sys.argv) != 3:
        fail("usage: make_wheel.py BUILD_DIR OUT_DIR")
    build, out = pathlib.Path(sys.argv[1]).resolve(), pathlib.Path(sys.argv[2])
    project = tomllib.loads((HERE / "pyproject.toml").read_text())["project"]
    name, version = project["name"], project["version"]
    header = build / "generated" / "atomq" / "version.hpp"
    built = re.search(r'kVersion = "([^"]+)"', header.read_text()) if header.is_file() else None
    if not built or built.group(1) != version:
        fail(f"python/pyproject.toml says version {version}, the build {built.group(1) if built else '(unknown)'}")
    files, module = package_files(build)
    tag = wheel_tag(module)
    info = f"{name}-{version}.dist-info"
    metadata = (f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\nSummary: {project['description']}\n"
                f"Requires-Python: {project['requires-python']}\nLicense: {project['license']['text']}\n")
    wheel = f"Wheel-Version: 1.0\nGenerator: atomq make_wheel.py\nRoot-Is-Purelib: false\nTag: {tag}\n"
    out.mkdir(parents=True, exist_ok=True)
    target = out / f"{name}-{version}-{tag}.whl"
    records = []
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as z:
        for arcname, path in files:
            data = path.read_bytes()
            entry = zipfile.ZipInfo(arcname, date_time=(2026, 1, 1, 0, 0, 0))
            # A regular file's mode (pip keeps the executable bit only with S_IFREG set)
            entry.external_attr = (0o100755 if path.stat().st_mode & 0o111 else 0o100644) << 16
            entry.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(entry, data)
            records.append(record_line(arcname, data))
        for arcname, text in ((f"{info}/METADATA", metadata), (f"{info}/WHEEL", wheel)):
            z.writestr(arcname, text)
            records.append(record_line(arcname, text.encode()))
        records.append(f"{info}/RECORD,,")
        z.writestr(f"{info}/RECORD", "\n".join(records) + "\n")
    print(target)


if __name__ == "__main__":
    main()
