#!/usr/bin/env python3
"""Shows, side by side as a unified diff, the Temporal server settings docker-compose.yml gives its
containers and those the native cluster tier (npm run test:cluster) runs with: server and
admin-tools versions, the schema steps, the server configuration and the dynamic config. Both are
meant to come from deploy/temporal/; any difference is printed and the exit code is 1.

Input: `docker-compose config` output (YAML, interpolated with .env.example) on stdin.
Uses python3-yaml, which Debian's docker-compose depends on."""
import difflib
import hashlib
import os
import re
import sys

import yaml

ROOT = os.path.realpath(os.path.join(os.path.dirname(__file__), "..", ".."))
DEPLOY = os.path.join(ROOT, "deploy", "temporal")
# The native tier's references to deploy/temporal (test/cluster/harness/temporal-server.ts).
HARNESS = os.path.join(ROOT, "test", "cluster", "harness", "temporal-server.ts")


def file_view(label, path):
    """A file as lines of the listing: its name and content (or that it is missing)."""
    if path is None or not os.path.isfile(path):
        return [f"{label}: MISSING ({path})"]
    with open(path, encoding="utf-8") as f:
        text = f.read()
    digest = hashlib.sha256(text.encode()).hexdigest()[:12]
    return [f"{label}: {os.path.relpath(path, ROOT)} sha256:{digest}"] + [f"  | {line}" for line in text.splitlines()]


def host_path(service, container_path):
    """The host file behind a container path, through the service's bind mounts."""
    for volume in service.get("volumes", []):
        if isinstance(volume, dict):
            source, target = volume.get("source"), volume.get("target")
        else:
            parts = volume.split(":")
            source, target = (parts[0], parts[1]) if len(parts) > 1 else (None, parts[0])
        if source and target and (container_path == target or container_path.startswith(target.rstrip("/") + "/")):
            return os.path.join(source, os.path.relpath(container_path, target))
    return None


def image_tag(service):
    image = service.get("image", "")
    return image.rsplit(":", 1)[1] if ":" in image else "(untagged)"


def compose_view(config):
    services = config["services"]
    server, schema = services["temporal"], services["temporal-schema"]
    env = server.get("environment", {})
    entrypoint = schema.get("entrypoint") or []
    script = next((arg for arg in entrypoint if arg.endswith(".sh")), None)
    return (
        [f"temporal server version: {image_tag(server)}", f"admin-tools (schema tool) version: {image_tag(schema)}"]
        + file_view("schema steps", host_path(schema, script) if script else None)
        + file_view("server config", host_path(server, env.get("TEMPORAL_SERVER_CONFIG_FILE_PATH", "")))
        + file_view("dynamic config", host_path(server, env.get("DYNAMIC_CONFIG_FILE_PATH", "")))
    )


def native_view():
    with open(os.path.join(DEPLOY, "version"), encoding="utf-8") as f:
        version = f.read().strip()
    with open(HARNESS, encoding="utf-8") as f:
        harness = f.read()

    def used(name):
        # The harness names each file it runs with as path.join(DEPLOY_DIR, '<name>').
        return os.path.join(DEPLOY, name) if re.search(rf"DEPLOY_DIR,\s*'{re.escape(name)}'", harness) else None

    return (
        [f"temporal server version: {version}", f"admin-tools (schema tool) version: {version}"]
        + file_view("schema steps", used("schema.sh"))
        + file_view("server config", used("config.yaml"))
        + file_view("dynamic config", used("dynamicconfig.yaml"))
    )


def main():
    compose, native = compose_view(yaml.safe_load(sys.stdin)), native_view()
    diff = list(difflib.unified_diff(compose, native, "docker-compose.yml", "native cluster tier", lineterm=""))
    if diff:
        print("compose and the native cluster tier disagree on the Temporal server:", file=sys.stderr)
        print("\n".join(diff), file=sys.stderr)
        return 1
    print("compose and the native cluster tier agree: " + "; ".join(line for line in compose if not line.startswith("  |")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
