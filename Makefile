# tablevar: `make demo` plays the demo recording, `make test` runs every check.
# Both create .venv on first use and reinstall the project only when pyproject.toml changes.
# On a Raspberry Pi, `make pi` installs everything instead (docs/raspberry-pi.md), and
# `make test-pi` runs the tests with the packages a Pi gets from apt.

VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test

demo: $(STAMP)
	$(BIN)/tablevar demo

# pytest: a worker per core; a module's tests that share a costly fixture share a worker
# (tests/conftest.py).
test: $(STAMP)
	$(BIN)/lint-imports
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python -m pytest -n auto

$(STAMP): pyproject.toml
	test -x $(BIN)/python || python3 -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -e '.[dev]'
	touch $@

# demo-recording: renders recordings/demo with the simulator (its recipe lives with the simulator),
# and the button-football demo (tablevar demo --game button-football) at a modest size.
.PHONY: demo-recording
demo-recording: $(STAMP)
	$(BIN)/tablevar simulate demo --out recordings/demo --seed 1
	$(BIN)/tablevar simulate bf_called_goal --out recordings/demo-button-football --seed 1 --size 640x480 --fps 25

# ------------------------------------------------------------------ Raspberry Pi OS
# pi: Debian's own packages from apt, a virtual environment over them (--system-site-packages:
# picamera2 and libcamera exist only as system packages), the config file and the PIN once, and
# a systemd service that starts `tablevar live --source pi` at boot and restarts it.
# Run it as the user the service runs as (it asks sudo for the rest).
PI_APT := python3-venv python3-picamera2 python3-numpy python3-opencv python3-scipy \
	python3-flask python3-waitress python3-tqdm python3-av python3-gpiozero python3-lgpio
PI_VENV ?= .venv
SUDO := $(if $(filter 0,$(shell id -u)),,sudo)
SYSTEM_PYTHON := /usr/bin/python3

.PHONY: pi pi-packages pi-venv pi-service test-pi

pi: pi-packages pi-venv pi-service

pi-packages:
	$(SUDO) apt-get update
	$(SUDO) apt-get install -y --no-install-recommends $(PI_APT)

# tablevar itself over the system's packages: --no-deps, so pip adds no copies of numpy, OpenCV,
# SciPy or Flask; the check fails if the venv sees any but the system's. A venv made without the
# system's packages (an earlier `make demo`) is made anew.
pi-venv:
	grep -qs '^include-system-site-packages = true' $(PI_VENV)/pyvenv.cfg \
	  || $(SYSTEM_PYTHON) -m venv --clear --system-site-packages $(PI_VENV)
	$(PI_VENV)/bin/pip install --quiet --disable-pip-version-check --no-deps -e .
	$(PI_VENV)/bin/python -c 'import sys, numpy, cv2, scipy, flask, waitress, tqdm, av; \
	mods = (numpy, cv2, scipy, flask); \
	print("system packages:", *(f"{m.__name__} {m.__version__}" for m in mods)); \
	sys.exit(any(not m.__file__.startswith("/usr/lib/python3/") for m in mods))'

pi-service:
	test -f tablevar.toml || cp docs/tablevar.toml tablevar.toml
	test -f tablevar.env || (umask 077 && $(SYSTEM_PYTHON) -c \
	  'import secrets; print(f"TABLEVAR_PIN={secrets.randbelow(10**8):08d}")' > tablevar.env)
	sed -e 's|@USER@|$(shell id -un)|g' -e 's|@DIR@|$(CURDIR)|g' docs/tablevar.service \
	  | $(SUDO) tee /etc/systemd/system/tablevar.service >/dev/null
	$(SUDO) systemctl daemon-reload
	$(SUDO) systemctl enable tablevar
	$(SUDO) systemctl restart tablevar
	@echo "tablevar: the live page is at http://$$(hostname).local:8000/ \
	(or http://$$(hostname -I | cut -d' ' -f1):8000/); PIN $$(cut -d= -f2 tablevar.env)"

# test-pi: the unit tests of the Pi's path (camera, GPIO, calibration, vision, tracking, rules,
# the signals, the server and its API) in a venv made as `make pi` makes it, over Debian 12's
# packages (numpy 1.24, OpenCV 4.6, SciPy 1.10, Flask 2.2, PyAV 10, gpiozero 1.6: what Raspberry
# Pi OS has), with the test tools from pip (not Playwright, which only the browser tests use).
# Left to `make test`, to keep CI within its time: the browser tests (the page does not depend on
# the Pi's packages), the simulator's own tests and the tests that run the whole pipeline on
# rendered frames or clips (analyses, the live runner's simulated matches, restarts after SIGKILL,
# review; the same pipeline and rules whose parts the unit tests run here), and the fuzz tests.
PI_TEST_VENV := .venv-pi
PI_TEST_SKIP := tests/web/*browser* tests/simulator tests/*/test_fuzz* tests/*/*_rendered.py \
	tests/tablevar/test_live.py tests/tablevar/test_live_restart.py tests/tablevar/test_replay.py \
	tests/tablevar/test_review.py tests/tablevar/test_calls_e2e.py tests/tablevar/test_analyze.py \
	tests/tablevar/test_mid_play.py tests/tablevar/test_button_stage.py \
	tests/calibration/test_calibrate.py tests/calibration/test_other_cameras.py
test-pi:
	$(MAKE) --no-print-directory pi-venv PI_VENV=$(PI_TEST_VENV)
	$(PI_TEST_VENV)/bin/pip install --quiet --disable-pip-version-check \
	  pytest pytest-xdist hypothesis
	$(PI_TEST_VENV)/bin/python -m pytest -n auto -p no:cacheprovider \
	  $(addprefix --ignore-glob=,$(PI_TEST_SKIP))
