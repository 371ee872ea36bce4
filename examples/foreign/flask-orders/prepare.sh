#!/usr/bin/env bash
# Checks that Debian bookworm's packages are what server.py imports under
# /usr/bin/python3 -I, at the versions expectations.yaml was read from
# (resilcheck matrix runs this before certifying; so does the zoo test).
# Install them with:
#   apt-get install -y python3-flask python3-flask-limiter python3-waitress python3-requests
set -euo pipefail
exec /usr/bin/python3 -I - <<'EOF'
import importlib, sys
from importlib import metadata
want = {  # module: (distribution, version read)
    "flask": ("Flask", "2.2.2"),
    "werkzeug": ("Werkzeug", "2.2.2"),
    "flask_limiter": ("Flask-Limiter", "3.3.0"),
    "limits": ("limits", "2.8.0"),
    "waitress": ("waitress", "2.1.2"),
    "requests": ("requests", "2.28.1"),
    "urllib3": ("urllib3", "1.26.12"),
}
bad = []
for mod, (dist, version) in want.items():
    try:
        m = importlib.import_module(mod)
    except ImportError as e:
        bad.append(f"{mod}: not importable ({e})")
        continue
    got = metadata.version(dist)
    if not m.__file__.startswith("/usr/lib/python3/dist-packages/"):
        bad.append(f"{mod} {got} comes from {m.__file__}, not Debian's /usr/lib/python3/dist-packages")
    elif got != version:
        bad.append(f"{dist} is {got}; expectations.yaml was read from {version}")
if bad:
    sys.exit("flask-orders: " + "; ".join(bad) +
             "\n  apt-get install -y python3-flask python3-flask-limiter python3-waitress python3-requests")
print("flask-orders: python3 %s, %s" % (sys.version.split()[0],
      ", ".join(f"{d} {v}" for d, v in want.values())))
EOF
