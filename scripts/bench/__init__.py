# SPDX-License-Identifier: MIT
# Copyright (c) 2026 The Imago authors

"""Modules of scripts/bench-server and scripts/bench-peers (pypeer.py and cdecode.c are programs)."""
