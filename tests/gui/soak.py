#!/usr/bin/env python3
"""Randomized GUI soak: the real app under Xvfb takes random clicks, drags, wheel turns, keys, typing and the file
dialogs (Ctrl+O, Ctrl+S, Ctrl+E) for a bounded time with a fixed seed, then SIGTERM (which must save the session and
exit 0). Fails on any abort, crash, assertion or sanitizer report on stderr, a hang at exit, or resident memory
growing more than a bound after warm-up. Run inside an X server (soak_test.sh starts Xvfb).

Usage: soak.py APP WORK_DIR   (env: TW_SOAK_SECONDS, TW_SOAK_SEED, TW_SOAK_RSS_GROWTH_MB)"""
import os
import random
import signal
import subprocess
import sys
import time

app, work = sys.argv[1], os.path.abspath(sys.argv[2])
seconds = float(os.environ.get("TW_SOAK_SECONDS", "150"))
seed = int(os.environ.get("TW_SOAK_SEED", "28"))
growth_bound_mb = float(os.environ.get("TW_SOAK_RSS_GROWTH_MB", "600"))
W, H = 1280, 800
rng = random.Random(seed)
os.makedirs(work, exist_ok=True)
env = dict(os.environ, XDG_CONFIG_HOME=os.path.join(work, "config"), HOME=work)
BAD = ("AddressSanitizer", "LeakSanitizer", "runtime error:", "Assertion", "terminate called", "internal error",
       "Segmentation fault", "Aborted")
counts = {}
failures = []


def rss_mb(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return None


def xdo(*args):
    subprocess.run(["xdotool", *map(str, args)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=20)


class App:
    def __init__(self, run):
        self.log_path = os.path.join(work, f"app-{run}.err")
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen([app, "--width", str(W), "--height", str(H)], cwd=work, env=env,
                                     stdout=subprocess.DEVNULL, stderr=self.log)
        deadline = time.time() + 90  # the sanitizer build starts slowly
        while time.time() < deadline and self.proc.poll() is None:
            r = subprocess.run(["xdotool", "search", "--pid", str(self.proc.pid)], capture_output=True, text=True)
            if r.stdout.strip():
                break
            time.sleep(0.2)
        time.sleep(1.0)

    def stderr_problems(self):
        self.log.flush()
        with open(self.log_path, errors="replace") as f:
            text = f.read()
        return [line for line in text.splitlines() if any(b in line for b in BAD)]


def random_event():
    x, y = rng.randrange(W), rng.randrange(H)
    if rng.random() < 0.12:
        y = rng.randrange(24)  # the menu bar
    kind = rng.choices(["click", "double", "right", "drag", "wheel", "key", "type", "dialog"],
                       [38, 3, 3, 13, 13, 15, 9, 6])[0]
    counts[kind] = counts.get(kind, 0) + 1
    if kind == "click":
        xdo("mousemove", x, y, "click", 1)
    elif kind == "double":
        xdo("mousemove", x, y, "click", "--repeat", 2, "--delay", 40, 1)
    elif kind == "right":
        xdo("mousemove", x, y, "click", 3)
    elif kind == "drag":
        x2, y2 = min(W - 1, max(0, x + rng.randint(-400, 400))), min(H - 1, max(0, y + rng.randint(-300, 300)))
        xdo("mousemove", x, y, "mousedown", 1, "sleep", 0.03, "mousemove", (x + x2) // 2, (y + y2) // 2, "sleep", 0.03,
            "mousemove", x2, y2, "sleep", 0.03, "mouseup", 1)
    elif kind == "wheel":
        xdo("mousemove", x, y, "click", "--repeat", rng.randint(1, 6), "--delay", 15, rng.choice([4, 5, 6, 7]))
    elif kind == "key":
        xdo("key", rng.choice(["Escape", "Escape", "Tab", "Return", "Escape", "Up", "Down", "Left", "Right", "space", "BackSpace", "Delete",
                               "Home", "End", "Page_Down", "F1", "F11", "ctrl+t", "ctrl+equal", "ctrl+minus",
                               "ctrl+0", "ctrl+shift+o", "ctrl+a", "ctrl+z", "shift+Tab", "ctrl+Return"]))
    elif kind == "type":
        alphabet = "abcdefghijklmnopqrstuvwxyz0123456789 -.,/_"
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 12)))
        if rng.random() < 0.2:
            text = rng.choice(["1e308", "-1", "99999999999", "nan", "0", "/dev/zero", "/tmp", "[[[[[["])
        xdo("mousemove", x, y, "click", 1, "type", "--delay", 8, text)
    else:
        xdo("key", rng.choice(["ctrl+o", "ctrl+s", "ctrl+e"]))


run = 0
current = App(run)
start = time.time()
warm_until = start + seconds * 0.25
baseline = peak = 0.0
events = restarts = 0
last_sample = 0.0
while time.time() - start < seconds:
    code = current.proc.poll()
    if code is not None:
        problems = current.stderr_problems()
        if code != 0 or problems:
            failures.append(f"run {run} exited with {code} after {events} events: " + " | ".join(problems[:5]))
            break
        # A random click reached File > Quit: start again (counted, not a failure).
        restarts += 1
        run += 1
        current = App(run)
        continue
    random_event()
    events += 1
    time.sleep(rng.uniform(0.005, 0.05))
    now = time.time()
    if now - last_sample > 0.5:
        last_sample = now
        r = rss_mb(current.proc.pid)
        if r is not None and run == 0:
            if now < warm_until:
                baseline = max(baseline, r)
            else:
                peak = max(peak, r)

if os.environ.get("TW_SOAK_SCREENSHOT"):  # what the random input left on screen, for a person to look at
    subprocess.run(["import", "-window", "root", os.environ["TW_SOAK_SCREENSHOT"]], timeout=30)
if not failures:
    # The end: SIGTERM saves the session through the normal exit path and exits 0 in bounded time.
    current.proc.send_signal(signal.SIGTERM)
    try:
        code = current.proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        current.proc.kill()
        code = "hang (killed after 60 s)"
    problems = current.stderr_problems()
    if code != 0 or problems:
        failures.append(f"SIGTERM at the end: exit {code}: " + " | ".join(problems[:5]))
    elif not os.path.exists(os.path.join(work, "config", "transformer-workbench", "last-session.json")):
        failures.append("SIGTERM at the end: exit 0 but no last-session.json was saved")
growth = peak - baseline if peak else 0.0
if baseline and growth > growth_bound_mb:
    failures.append(f"resident memory grew {growth:.0f} MiB after warm-up (bound {growth_bound_mb:.0f} MiB)")
summary = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
print(f"soak: seed {seed}, {time.time() - start:.0f} s, {events} events ({summary}), {restarts} restarts; "
      f"RSS after warm-up {baseline:.0f} MiB, peak later {peak:.0f} MiB, growth {growth:.0f} MiB "
      f"(bound {growth_bound_mb:.0f})")
for f in failures:
    print("FAIL " + f)
sys.exit(1 if failures else 0)
