"""What the optional real-Synapse test (test_matrix_synapse.py) and the
Matrix benchmark (bench/matrix_hand.py) read besides the client-server
API: an application service's registration file, and Synapse's log (its
access lines: who asked what, and the answer's status; the transactions
it pushed to an application service).

Synapse writes an access line when a request ends and flushes its log
every few seconds: read it some seconds after the last request.
"""

import os
import re
import time

# the recipe's log (../shared/realservers/synapse.sh)
DEFAULT_LOG = "/tmp/realservers/synapse/homeserver.log"

# 2026-11-27 18:52:18,890 - synapse.access.http.18008 - 450 - INFO -
# PUT-5135 - 127.0.0.1 - 18008 - {@heartsbot:localhost} Processed request:
# 0.022sec/0.001sec (...) (...) 59B 200 "PUT /_matrix/... HTTP/1.1" ...
# (a "!" after the status: the client went away before the answer)
_ACCESS = re.compile(
    r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d),(\d{3}) - synapse\.access\.\S+ "
    r"- \d+ - \w+ - \S+ - \S+ - \S+ - \{([^}]*)\} Processed request: "
    r".*? (\d+)B (\d+)!? \"(\S+) (\S+) [^\"]*\"")
# ... - synapse.http.client - 446 - INFO - as-sender-heartsbot-1 -
# Received response to PUT http://127.0.0.1:29009/transactions/17?
# access_token=<redacted>: 200
_AS_PUT = re.compile(
    r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d),(\d{3}) - synapse\.http\.client "
    r".* - Received response to PUT (\S+?)/(?:_matrix/app/v1/)?"
    r"transactions/([^?\s]+)\S*: (\d+)")


def _when(date, ms):
    """Synapse's log time (local time) as a Unix time."""
    return time.mktime(time.strptime(date, "%Y-%m-%d %H:%M:%S")) + \
        int(ms) / 1000.0


class Log:
    """Synapse's log from the moment this was made (its size then)."""

    def __init__(self, path=DEFAULT_LOG):
        self.path = path
        try:
            self.offset = os.path.getsize(path)
        except OSError:
            self.offset = 0

    def lines(self):
        """The lines written since; OSError if the log cannot be read."""
        with open(self.path, encoding="utf-8", errors="replace") as f:
            size = os.fstat(f.fileno()).st_size
            f.seek(self.offset if self.offset <= size else 0)
            return f.read().splitlines()

    def requests(self, user_id):
        """[(Unix time, method, path, status)] of one user's requests."""
        out = []
        for line in self.lines():
            m = _ACCESS.match(line)
            # "{user}" or, acting for another, "{authenticated|user}"
            if m and m.group(3).split("|")[-1] == user_id:
                out.append((_when(m.group(1), m.group(2)), m.group(6),
                            m.group(7), int(m.group(5))))
        return out

    def transactions(self, base_url):
        """[(Unix time, transaction ID, status)] of the transactions
        Synapse PUT to an application service at base_url (its
        registration's url)."""
        base = base_url.rstrip("/")
        out = []
        for line in self.lines():
            m = _AS_PUT.match(line)
            if m and m.group(3) == base:
                out.append((_when(m.group(1), m.group(2)), m.group(4),
                            int(m.group(5))))
        return out


def read_registration(path):
    """{key: value} of a registration file's top-level `key: value` lines
    (the subset of YAML the bot reads: plain, "double-quoted" or
    'single-quoted' values); OSError if it cannot be read."""
    out = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"^([a-z_]+):[ \t]*(.*?)[ \t]*$", line)
            if not m:
                continue
            v = m.group(2)
            if len(v) >= 2 and v[0] == v[-1] == '"':
                v = re.sub(r"\\(.)", r"\1", v[1:-1])
            elif len(v) >= 2 and v[0] == v[-1] == "'":
                v = v[1:-1]
            out[m.group(1)] = v
    return out
